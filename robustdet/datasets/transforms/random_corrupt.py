# Copyright (c) robustdet contributors. All rights reserved.
"""Training with image corruptions: :class:`RandomCorrupt` corrupts each
training image with a corruption and severity picked per image and epoch,
and :class:`RandomCorruptHook` tells it the epoch and the run's seed.

The picks and the pixels depend only on (seed, epoch, image identity),
never on global random state: the same config and seed give the same
pixels with any number of dataloader workers, persistent or not, and after
a resume.
"""
import inspect
import logging
import math
from numbers import Real
from typing import Any, Iterator, List, Optional, Sequence, Tuple, Union

import numpy as np
import torch
from mmcv.transforms import BaseTransform
from mmdet.registry import HOOKS, TRANSFORMS
from mmengine.hooks import Hook
from mmengine.logging import MessageHub, print_log
from mmengine.runner import EpochBasedTrainLoop

from ...corruptions import (BACKENDS, DEFAULT_BACKEND, SEVERITIES,
                            check_channel_order, check_severity, corrupt,
                            get_corruption, resolve_corruptions)
from ...utils.errors import RobustDetError
from ...utils.seeding import derive_seed
from .corrupt import corruption_seed, image_identity

# The corruptions RandomCorrupt trains on by default: the 4 hold-out
# (validation) corruptions of the benchmark, which no test metric but
# mPC_holdout counts.
DEFAULT_TRAIN_CORRUPTIONS: Tuple[str, ...] = ('holdout', )
SeverityArg = Union[int, Tuple[int, int], Sequence[int]]

# The backends that run in the dataloader workers: the CPU ones.
CPU_BACKENDS: Tuple[str, ...] = tuple(b for b in BACKENDS if b != 'torch')
# Slots of the state shared with the dataloader workers.
_EPOCH, _SEED, _SET = 0, 1, 2


def _check_severities(severities: SeverityArg) -> Tuple[int, ...]:
    """The severities ``severities`` allows, ascending: a tuple ``(lo,
    hi)`` is the range lo..hi, a list (or any other sequence) the listed
    ones, an int that one."""
    if isinstance(severities, (int, np.integer)) and not isinstance(
            severities, bool):
        return (check_severity(int(severities)), )
    if isinstance(severities, tuple) and len(severities) == 2:
        lo, hi = (check_severity(s) for s in severities)
        if lo > hi:
            raise RobustDetError(
                f'severities {severities!r}: a (lo, hi) range needs lo <= '
                'hi (a list picks from its items)')
        return tuple(range(lo, hi + 1))
    if isinstance(severities, (str, bytes)) or not isinstance(
            severities, Sequence) or not severities:
        raise RobustDetError(
            f'severities must be a (lo, hi) tuple, a non-empty list of '
            f'severities or one severity in '
            f'{", ".join(map(str, SEVERITIES))}; got {severities!r}')
    return tuple(sorted({check_severity(s) for s in severities}))


def _check_corruptions(corruptions: Union[str, Sequence[str]],
                       allow_benchmark: bool) -> Tuple[str, ...]:
    """The corruption names ``corruptions`` selects, table order."""
    tokens = [corruptions] if isinstance(corruptions, str) else corruptions
    names = resolve_corruptions(tokens)
    if not names:
        raise RobustDetError('RandomCorrupt needs at least one corruption')
    for name in names:
        entry = get_corruption(name)
        if entry.needs_depth:
            raise RobustDetError(
                f'{name} needs a depth map, which training pipelines do not '
                "load; the 3DCC corruptions without depth are "
                "'3dcc_depth_free' (low_light, iso_noise, color_quant)")
        if entry.benchmark and not allow_benchmark:
            raise RobustDetError(
                f'{name} is one of the 15 benchmark corruptions: training on '
                'the test corruptions invalidates mPC (pass '
                'allow_benchmark=True to train on them anyway)')
    return tuple(names)


def _check_prob(prob: Real) -> float:
    if isinstance(prob, bool) or not isinstance(
            prob, Real) or math.isnan(prob) or not 0 <= prob <= 1:
        raise RobustDetError(f'prob must be in [0, 1], got {prob!r}')
    return float(prob)


def _check_seed(seed: Optional[int]) -> Optional[int]:
    if seed is None:
        return None
    if isinstance(seed, bool) or not isinstance(
            seed, (int, np.integer)) or not 0 <= seed < 2**32:
        raise RobustDetError(
            f'seed must be None or an integer in [0, 2**32), got {seed!r}')
    return int(seed)


@TRANSFORMS.register_module()
class RandomCorrupt(BaseTransform):
    """Corrupt training images at random, reproducibly: each image is
    corrupted with probability ``prob``, with a corruption drawn from
    ``corruptions`` and a severity drawn from ``severities``.

    Put it right after the image loading step (the benchmark corrupts
    images at their original resolution, before resizing), and add
    :class:`RandomCorruptHook` to the config's ``custom_hooks``: it tells
    the transform the epoch (and the run's seed when ``seed`` is None)
    before every epoch, in the dataloader workers too::

        train_pipeline = [
            dict(type='LoadImageFromFile'),
            dict(type='RandomCorrupt'),
            dict(type='LoadAnnotations', with_bbox=True),
            ...
        ]
        custom_hooks = [dict(type='RandomCorruptHook')]

    Whether the image is corrupted, the corruption and the severity are
    picked per image with :func:`robustdet.utils.derive_seed` from (seed,
    epoch, image identity), and the image is corrupted with the seed
    :class:`CorruptImage` would use under the epoch's seed
    (:meth:`epoch_seed`). Nothing reads or advances numpy's, Python's or
    torch's global random state, so the pixels do not depend on the
    number of workers, on the order of loading or on a resume; the image
    identity is as in :class:`CorruptImage` (the path relative to
    ``path_root``, else the file name).

    The default trains on the 4 hold-out (validation) corruptions:
    training on a family turns its mPC (mPC_cbar, mPC_3dcc) into a score
    on seen corruptions, so add ``'cbar'`` or ``'3dcc_depth_free'`` only
    for a model that is not reported on them. The 15 benchmark
    corruptions are refused unless ``allow_benchmark=True`` (mPC would
    no longer measure unseen corruptions), and the corruptions that need
    depth are refused (training pipelines load no depth maps).

    Outside a runner (e.g. to look at samples) it runs with epoch 0 and,
    when ``seed`` is None, seed 0 (:meth:`set_epoch` and
    :meth:`set_run_seed` change them); in a runner's training without
    :class:`RandomCorruptHook` it fails with a one-line error.

    The identity is the file name by default, which the clean and the
    stylized copy of an image share: in a combined (clean + stylized)
    training set both get the same picks in an epoch. Under a
    ``RepeatDataset`` the repeats of an epoch get the same picks too.

    Required Keys:

    - img (np.uint8, BGR as loaded by mmdet, or grayscale)
    - img_path (str)

    Modified Keys:

    - img (only its pixels: same shape and dtype; boxes, masks and the
      other annotations are untouched)

    Added Keys:

    - corruption (str | None: None when the image was left clean)
    - severity (int | None: None when the image was left clean)

    Args:
        corruptions (str | Sequence[str]): Corruption names and/or
            selection words of :data:`robustdet.corruptions.SELECTIONS`
            (``'holdout'``, ``'cbar'``, ``'3dcc_depth_free'``...), drawn
            from uniformly. Defaults to ``('holdout', )``.
        severities (tuple | list | int): A ``(lo, hi)`` tuple: a
            severity drawn uniformly from the integers lo..hi; a list (or
            a tuple of another length): drawn uniformly from its items; an
            int: always that one. Mind the difference: ``(1, 5)`` draws
            from 1-5, ``[1, 5]`` from 1 and 5. Defaults to ``(1, 5)``.
        prob (float): Probability that an image is corrupted. Defaults to
            0.5.
        seed (int, optional): Seed of the picks and the corruptions. None
            takes the run's seed (the config's ``randomness.seed``, or 0
            where none is set) from :class:`RandomCorruptHook`. Defaults to
            None.
        allow_benchmark (bool): Allow the 15 benchmark corruptions.
            Defaults to False.
        backend (str): Corruption backend, ``'fast'`` or ``'reference'``
            (see :func:`robustdet.corruptions.corrupt`; the torch backend
            is for test-time grids on a device). Defaults to ``'fast'``.
        channel_order (str): The channel order the corruptions are defined
            on, as in :class:`CorruptImage`: the image is always mmdet's
            BGR array; ``'rgb'`` applies the published (RGB) definitions to
            it, ``'bgr'`` applies them to the channels reversed (what
            mmdet's ``Corrupt`` does). Defaults to ``'rgb'``.
        path_root (str, optional): Root that image identities are relative
            to (the dataset's ``data_root``). Defaults to None (the file
            name).
    """

    def __init__(self,
                 corruptions: Union[str, Sequence[str]] = (
                     DEFAULT_TRAIN_CORRUPTIONS),
                 severities: SeverityArg = (1, 5),
                 prob: float = 0.5,
                 seed: Optional[int] = None,
                 allow_benchmark: bool = False,
                 backend: str = DEFAULT_BACKEND,
                 channel_order: str = 'rgb',
                 path_root: Optional[str] = None) -> None:
        self.corruptions = _check_corruptions(corruptions, allow_benchmark)
        self.severities = _check_severities(severities)
        self.prob = _check_prob(prob)
        self.seed = _check_seed(seed)
        self.allow_benchmark = bool(allow_benchmark)
        if backend not in CPU_BACKENDS:
            raise RobustDetError(
                f'unknown corruption backend {backend!r} for a training '
                f'pipeline; valid: {", ".join(CPU_BACKENDS)}')
        self.backend = backend
        self.channel_order = check_channel_order(channel_order)
        self.path_root = path_root
        # (epoch, run seed, set by the hook), in shared memory: the
        # dataloader workers (forked or spawned, persistent or not) read
        # what the hook writes in the main process.
        self._shared = torch.zeros(3, dtype=torch.int64).share_memory_()

    @property
    def _state(self) -> np.ndarray:
        """The shared state, as a numpy view (made in each process)."""
        return self._shared.numpy()

    @property
    def epoch(self) -> int:
        """The epoch the picks are made for."""
        return int(self._state[_EPOCH])

    def set_epoch(self, epoch: int) -> None:
        """Set the epoch (:class:`RandomCorruptHook` does, before each
        epoch), for this process and its dataloader workers."""
        if isinstance(epoch, bool) or not isinstance(
                epoch, (int, np.integer)) or epoch < 0:
            raise RobustDetError(f'epoch must be an integer >= 0, got '
                                 f'{epoch!r}')
        self._state[_EPOCH] = int(epoch)
        self._state[_SET] = 1

    def set_run_seed(self, seed: Optional[int]) -> None:
        """Set the run's seed, used when ``seed`` is None (None: 0)."""
        self._state[_SEED] = _check_seed(seed) or 0

    @property
    def effective_seed(self) -> int:
        """``seed``, or the run's seed when it is None."""
        return self.seed if self.seed is not None else int(
            self._state[_SEED])

    def epoch_seed(self, epoch: Optional[int] = None) -> int:
        """The seed of an epoch's picks and corruptions (default: the
        current epoch); an image picked for corruption c at severity s is
        corrupted as ``CorruptImage(c, s, seed=epoch_seed(epoch))`` would
        corrupt it."""
        epoch = self.epoch if epoch is None else epoch
        return derive_seed(self.effective_seed, 'random_corrupt', epoch)

    def pick(self, identity: str, epoch: Optional[int] = None
             ) -> Tuple[Optional[str], Optional[int]]:
        """The (corruption, severity) of an image in an epoch, (None,
        None) when it stays clean.

        Args:
            identity (str): The image's identity (see
                :func:`image_identity`).
            epoch (int, optional): The epoch; default the current one.

        Returns:
            tuple: ``(corruption, severity)`` or ``(None, None)``.
        """
        seed = self.epoch_seed(epoch)
        draw = derive_seed(seed, identity, 'apply') / 2.0**32
        if draw >= self.prob:
            return None, None
        name = self.corruptions[derive_seed(seed, identity, 'corruption') %
                                len(self.corruptions)]
        severity = self.severities[derive_seed(seed, identity, 'severity') %
                                   len(self.severities)]
        return name, severity

    def transform(self, results: dict) -> dict:
        """Corrupt ``results['img']`` or leave it clean.

        Args:
            results (dict): Result dict from the loading step.

        Returns:
            dict: The result dict, with ``corruption`` and ``severity``.
        """
        if not self._state[_SET]:
            _check_not_training()
        identity = image_identity(results['img_path'], self.path_root)
        name, severity = self.pick(identity)
        results['corruption'] = name
        results['severity'] = severity
        if name is None:
            return results
        img = results['img']
        seed = corruption_seed(self.epoch_seed(), identity, name, severity)
        # mmdet loads BGR; corrupt() takes RGB.
        rgb = np.ascontiguousarray(img[..., ::-1]) if img.ndim == 3 else img
        out = corrupt(rgb, name, severity, seed=seed, backend=self.backend,
                      channel_order=self.channel_order)
        if out.ndim == 3:
            out = np.ascontiguousarray(out[..., ::-1])
        results['img'] = out.reshape(img.shape)
        return results

    def __repr__(self) -> str:
        return (f'{self.__class__.__name__}('
                f'corruptions={self.corruptions!r}, '
                f'severities={self.severities!r}, prob={self.prob}, '
                f'seed={self.seed}, allow_benchmark={self.allow_benchmark}, '
                f'backend={self.backend!r}, '
                f'channel_order={self.channel_order!r}, '
                f'path_root={self.path_root!r})')


def _check_not_training() -> None:
    """Fail where a runner trains without :class:`RandomCorruptHook`: the
    epoch would stay 0, the picks would repeat every epoch."""
    hub = MessageHub.get_current_instance()
    if hub.get_info('loop_stage') == 'train':
        raise RobustDetError(
            'RandomCorrupt is training without its hook: add '
            "custom_hooks = [dict(type='RandomCorruptHook')] to the config "
            '(it passes the epoch and the run seed to the transform)')


def with_random_corrupt(dataset: Any, step: dict) -> Any:
    """A dataset config with ``step`` (a ``RandomCorrupt`` config) right
    after the image loading step (the first step) of every pipeline in
    it, wrappers (``dataset``, ``datasets``) included; for configs, e.g.
    ``train_dataloader = dict(dataset=with_random_corrupt(
    _base_.train_dataloader.dataset, _base_.random_corrupt))``.

    Args:
        dataset (dict | list): A dataset config (or part of one).
        step (dict): The step to insert.

    Returns:
        dict | list: A copy with the step inserted.
    """
    if isinstance(dataset, list):
        return [with_random_corrupt(d, step) for d in dataset]
    if not isinstance(dataset, dict):
        return dataset
    node = {k: with_random_corrupt(v, step) for k, v in dataset.items()}
    if 'pipeline' in node:
        load, *rest = node['pipeline']
        node['pipeline'] = [load, step, *rest]
    return node


def iter_random_corrupts(obj: Any) -> Iterator[RandomCorrupt]:
    """Yield the :class:`RandomCorrupt` transforms of a dataset, looking
    through dataset wrappers (``dataset``, ``datasets``), pipelines and
    nested transforms (``transforms``, ``transform``)."""
    seen = set()
    stack = [obj]
    while stack:
        node = stack.pop()
        if node is None or id(node) in seen:
            continue
        seen.add(id(node))
        if isinstance(node, RandomCorrupt):
            yield node
            continue
        if isinstance(node, (list, tuple)):
            stack.extend(reversed(node))
            continue
        for attr in ('datasets', 'dataset', 'pipeline', 'transforms',
                     'transform'):
            child = getattr(node, attr, None)
            # Skip methods (a transform's ``transform``) and plain values.
            if not (child is None or inspect.isroutine(child) or isinstance(
                    child, (str, bytes, Real, dict, np.ndarray))):
                stack.append(child)


@HOOKS.register_module()
class RandomCorruptHook(Hook):
    """Pass the epoch and the run's seed to the :class:`RandomCorrupt`
    transforms of the training set, before every training epoch.

    The transforms keep them in shared memory, which the dataloader
    workers read when they load an image: workers forked once and kept
    (``persistent_workers=True``) see every epoch, and a resumed run sees
    the epoch it resumes at (``runner.epoch``). mmengine's message hub
    would not do: persistent workers keep the copy of it made when they
    started, at epoch 0. The hook runs before the loop hands the epoch's
    first indices to the workers, and an epoch's samples are all loaded
    before the next epoch's hook runs. The run's seed is the config's
    ``randomness.seed``, or 0 where none is set (mmengine then draws a
    random seed, which would make the picks unrepeatable).

    An iteration-based loop has one epoch: its passes over the data repeat
    the same picks (a warning says so).
    """

    priority = 'NORMAL'

    def before_train(self, runner) -> None:
        """Say what it drives; warn where that is nothing or the loop is
        iteration-based."""
        count = len(self._transforms(runner))
        if not count:
            print_log(
                'RandomCorruptHook: the training set has no RandomCorrupt '
                'transform', logger='current', level=logging.WARNING)
            return
        print_log(
            f'RandomCorruptHook: {count} RandomCorrupt transform(s), run '
            f'seed {run_seed(runner)}', logger='current')
        if not isinstance(runner.train_loop, EpochBasedTrainLoop):
            print_log(
                'RandomCorruptHook: the training loop is not epoch-based, '
                'so every pass over the data repeats the picks of epoch 0',
                logger='current', level=logging.WARNING)

    def before_train_epoch(self, runner) -> None:
        """Set the epoch and the run seed on the training transforms."""
        seed = run_seed(runner)
        for transform in self._transforms(runner):
            transform.set_run_seed(seed)
            transform.set_epoch(runner.epoch)

    @staticmethod
    def _transforms(runner) -> List[RandomCorrupt]:
        return list(iter_random_corrupts(runner.train_dataloader.dataset))


def run_seed(runner) -> int:
    """The run's seed for :class:`RandomCorrupt`: the config's
    ``randomness.seed``, or 0 where none is set."""
    randomness = (runner.cfg.get('randomness') or {})
    seed = randomness.get('seed')
    return 0 if seed is None else int(seed)
