# Copyright (c) robustdet contributors. All rights reserved.
"""Training with image corruptions: :class:`RandomCorrupt` corrupts each
training sample with a corruption and severity drawn per sample and
epoch; :class:`~robustdet.datasets.EpochPositionDataset` (the outermost
training set) tells it the epoch, the run's seed and the sample's
position, which :class:`~robustdet.engine.RandomCorruptHook` keeps
current.

The draws and the pixels depend only on (seed, epoch, position, image
identity), never on global random state: the same config and seed give
the same pixels with any number of dataloader workers, persistent or not,
and after a resume, and every sample of an epoch draws afresh.
"""
import inspect
import math
from numbers import Real
from typing import Any, Iterator, Optional, Sequence, Tuple, Union

import numpy as np
from mmcv.transforms import BaseTransform
from mmdet.registry import TRANSFORMS
from mmengine.logging import MessageHub
from torch.utils.data import get_worker_info

from ...corruptions import (BACKENDS, DEFAULT_BACKEND, SEVERITIES,
                            check_channel_order, check_severity, corrupt,
                            get_corruption, resolve_corruptions)
from ...utils.errors import RobustDetError
from ...utils.seeding import derive_seed
from .corrupt import corruption_seed, image_identity
from .sample_context import current_sample

# The corruptions RandomCorrupt trains on by default: the 4 hold-out
# (validation) corruptions of the benchmark, which no test metric but
# mPC_holdout counts.
DEFAULT_TRAIN_CORRUPTIONS: Tuple[str, ...] = ('holdout', )
SeverityArg = Union[int, Tuple[int, int], Sequence[int]]

# The backends that run in the dataloader workers: the CPU ones.
CPU_BACKENDS: Tuple[str, ...] = tuple(b for b in BACKENDS if b != 'torch')


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
    """Corrupt training images at random, reproducibly: each sample is
    corrupted with probability ``prob``, with a corruption drawn from
    ``corruptions`` and a severity drawn from ``severities``.

    Put it right after the image loading step (the benchmark corrupts
    images at their original resolution, before resizing), wrap the
    training set in :class:`~robustdet.datasets.EpochPositionDataset`,
    and add :class:`~robustdet.engine.RandomCorruptHook` to the config's
    ``custom_hooks``; :func:`with_random_corrupt` does the first two::

        train_dataloader = dict(dataset=with_random_corrupt(
            _base_.train_dataloader.dataset,
            dict(type='RandomCorrupt')))
        custom_hooks = [dict(type='RandomCorruptHook')]

    Every draw of a sample (whether it is corrupted, the corruption, the
    severity, and the corruption's own noise) derives with
    :func:`robustdet.utils.derive_seed` from (seed, epoch, position,
    image identity), where the position is the sample's index in the
    outermost dataset of the epoch (:meth:`draw_seed`). So the repeats of
    an image under a ``RepeatDataset``, its clean and stylized copies in
    a combined set, and same-named files in other folders all draw
    afresh, while nothing reads or advances numpy's, Python's or torch's
    global random state: the pixels do not depend on the number of
    workers, the batch size, the order of loading or a resume. The image
    identity is as in :class:`CorruptImage` (the path relative to
    ``path_root``, else the file name).

    The default trains on the 4 hold-out (validation) corruptions:
    training on a family turns its mPC (mPC_cbar, mPC_3dcc) into a score
    on seen corruptions, so add ``'cbar'`` or ``'3dcc_depth_free'`` only
    for a model that is not reported on them. The 15 benchmark
    corruptions are refused unless ``allow_benchmark=True`` (mPC would
    no longer measure unseen corruptions), and the corruptions that need
    depth are refused (training pipelines load no depth maps).

    Outside a training run (e.g. to look at samples, alone or through a
    wrapped set as mmdet's ``browse_dataset.py`` does) it runs with epoch
    0 and, when ``seed`` is None, seed 0 (:meth:`set_epoch` and
    :meth:`set_run_seed` change them), with the wrapper's positions if
    there is one. Where the epoch cannot be known it refuses with a
    one-line error rather than repeat epoch 0's draws: in a runner's
    training or a dataloader worker without
    :class:`~robustdet.datasets.EpochPositionDataset`, or with one that
    :class:`~robustdet.engine.RandomCorruptHook` never set.

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
        # The epoch and run seed of a use outside training, where no
        # EpochPositionDataset tells them.
        self._epoch, self._run_seed = 0, 0

    @property
    def epoch(self) -> int:
        """The epoch of a use outside training."""
        return self._epoch

    def set_epoch(self, epoch: int) -> None:
        """Set the epoch of a use outside training (in training,
        :class:`~robustdet.datasets.EpochPositionDataset` tells it)."""
        if isinstance(epoch, bool) or not isinstance(
                epoch, (int, np.integer)) or epoch < 0:
            raise RobustDetError(f'epoch must be an integer >= 0, got '
                                 f'{epoch!r}')
        self._epoch = int(epoch)

    def set_run_seed(self, seed: Optional[int]) -> None:
        """Set the run's seed of a use outside training, used when
        ``seed`` is None (None: 0)."""
        self._run_seed = _check_seed(seed) or 0

    @property
    def effective_seed(self) -> int:
        """``seed``, or the run's seed when it is None."""
        return self.seed if self.seed is not None else self._run_seed

    def draw_seed(self, epoch: Optional[int] = None,
                  position: Optional[int] = None,
                  run_seed: Optional[int] = None) -> int:
        """The seed every draw of a sample derives from: (seed, epoch)
        and, in training, the sample's position in the epoch's outermost
        dataset. A sample drawn to corruption c at severity s is
        corrupted as ``CorruptImage(c, s, seed=draw_seed(...))`` would
        corrupt it.

        Args:
            epoch (int, optional): The epoch; default :attr:`epoch`.
            position (int, optional): The sample's position; None outside
                training.
            run_seed (int, optional): The run's seed, used when ``seed``
                is None; default the one :meth:`set_run_seed` set.

        Returns:
            int: A seed in ``[0, 2**32)``.
        """
        epoch = self.epoch if epoch is None else epoch
        seed = self.seed if self.seed is not None else (
            self._run_seed if run_seed is None else run_seed)
        base = derive_seed(seed, 'random_corrupt', epoch)
        return base if position is None else derive_seed(
            base, 'position', position)

    def pick(self, identity: str, epoch: Optional[int] = None,
             position: Optional[int] = None,
             run_seed: Optional[int] = None
             ) -> Tuple[Optional[str], Optional[int]]:
        """The (corruption, severity) of a sample, (None, None) when it
        stays clean.

        Args:
            identity (str): The image's identity (see
                :func:`image_identity`).
            epoch (int, optional): The epoch; default :attr:`epoch`.
            position (int, optional): The sample's position in the
                epoch's outermost dataset (None outside training).
            run_seed (int, optional): See :meth:`draw_seed`.

        Returns:
            tuple: ``(corruption, severity)`` or ``(None, None)``.
        """
        return self._pick(identity,
                          self.draw_seed(epoch, position, run_seed))

    def _pick(self, identity: str,
              seed: int) -> Tuple[Optional[str], Optional[int]]:
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
        sample = current_sample()
        if sample is None:
            _check_outside_training(
                "RandomCorrupt needs the epoch and each sample's position: "
                "wrap the training set in dict(type='EpochPositionDataset', "
                'dataset=...) (with_random_corrupt() does) and add '
                "custom_hooks = [dict(type='RandomCorruptHook')]")
            seed = self.draw_seed()
        elif not sample.known:
            _check_outside_training(
                'RandomCorrupt does not know the epoch: add custom_hooks = '
                "[dict(type='RandomCorruptHook')] to the config (it sets "
                'the epoch and the run seed before every epoch)')
            # The wrapped set looked at outside training (e.g. mmdet's
            # browse_dataset.py): this transform's epoch, with positions.
            seed = self.draw_seed(None, sample.position)
        else:
            seed = self.draw_seed(sample.epoch, sample.position, sample.seed)
        identity = image_identity(results['img_path'], self.path_root)
        name, severity = self._pick(identity, seed)
        results['corruption'] = name
        results['severity'] = severity
        if name is None:
            return results
        img = results['img']
        seed = corruption_seed(seed, identity, name, severity)
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


def _check_outside_training(message: str) -> None:
    """Fail with ``message`` where the epoch should be known but is not:
    in a runner's training or a dataloader worker, the draws would repeat
    epoch 0's (and, without an EpochPositionDataset, the repeats of a
    sample would share them)."""
    hub = MessageHub.get_current_instance()
    if hub.get_info('loop_stage') == 'train' or get_worker_info():
        raise RobustDetError(message)


def _insert_step(dataset: Any, step: dict) -> Any:
    """``dataset`` with ``step`` after the first step of every pipeline."""
    if isinstance(dataset, list):
        return [_insert_step(d, step) for d in dataset]
    if not isinstance(dataset, dict):
        return dataset
    node = {k: _insert_step(v, step) for k, v in dataset.items()}
    if 'pipeline' in node:
        load, *rest = node['pipeline']
        node['pipeline'] = [load, step, *rest]
    return node


def with_random_corrupt(dataset: dict, step: dict) -> dict:
    """A training set config with ``step`` (a ``RandomCorrupt`` config)
    right after the image loading step (the first step) of every pipeline
    in it, wrappers (``dataset``, ``datasets``) included, wrapped in an
    :class:`~robustdet.datasets.EpochPositionDataset`; for configs, e.g.
    ``train_dataloader = dict(dataset=with_random_corrupt(
    _base_.train_dataloader.dataset, _base_.random_corrupt))``. The
    result replaces the base's dataset (``_delete_=True``).

    Args:
        dataset (dict): A dataset config.
        step (dict): The step to insert.

    Returns:
        dict: The wrapper's config.
    """
    return dict(_delete_=True, type='EpochPositionDataset',
                dataset=_insert_step(dataset, step))


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
