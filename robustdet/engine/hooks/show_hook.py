# Copyright (c) robustdet contributors. All rights reserved.
"""Pictures of the predictions of each cell (``--show-dir``).

The same few images (the first ``num`` of the test set, in dataset order)
are drawn in every cell of a run: ground truth on the left, predictions
above the score threshold on the right (mmdet's
:class:`~mmdet.visualization.DetLocalVisualizer`), on the image as the
model saw it before resizing (corrupted, at its original resolution; the
predictions are in its coordinates, as mmdet's ``rescale=True`` gives
them). The corrupted pixels are not kept by the pipeline: they are
computed again for the drawn images only, by the caller's image source
(the corruptions are deterministic, so they are the same pixels).

:class:`ShowHook` keeps the data samples of those images as the model's
outputs pass (``after_test_iter``) and draws them after the epoch
(``after_test_epoch``): every rank says which it has, the lowest rank
that has an image computes its pixels (a rank's padding repeats images of
lower ranks) and sends them with the data sample to rank 0, which draws
and writes every picture once (mmengine's visualizers draw on rank 0
only). The outputs are only read, so no number changes.
"""
import os.path as osp
from collections import Counter
from dataclasses import dataclass
from typing import Any, Dict, List, Optional, Sequence, Tuple

import cv2
import numpy as np
from mmdet.visualization import DetLocalVisualizer
from mmengine.hooks import Hook
from mmengine.logging import print_log

from ...datasets import iter_leaf_datasets
from ...utils.dist import gather_objects, rank_and_world
from ...utils.errors import RobustDetError
from ...utils.io import write_bytes_atomic

#: Images drawn per cell when ``--show-num`` is not given.
DEFAULT_SHOW_NUM = 5
#: Predictions below this score are not drawn, by default.
DEFAULT_SCORE_THR = 0.3
#: Quality of the written JPEGs.
JPEG_QUALITY = 90


@dataclass(frozen=True)
class ShowSettings:
    """Where the pictures go and what they show.

    Args:
        out_dir (str): The pictures' root directory.
        num (int): Images drawn per cell (the first of the test set).
        score_thr (float): Predictions with a lower score are not drawn.
    """
    out_dir: str
    num: int = DEFAULT_SHOW_NUM
    score_thr: float = DEFAULT_SCORE_THR

    def __post_init__(self) -> None:
        if not self.out_dir:
            raise RobustDetError('--show-dir needs a directory')
        if isinstance(self.num, bool) or not isinstance(self.num, int) or \
                self.num < 1:
            raise RobustDetError(
                f'--show-num must be at least 1, got {self.num}')
        if not 0 <= self.score_thr <= 1:
            raise RobustDetError('--show-score-thr must be in [0, 1], got '
                                 f'{self.score_thr}')

    @classmethod
    def from_cfg(cls, cfg: Any) -> Optional['ShowSettings']:
        """Settings from themselves, a dict of their fields, or None."""
        if cfg is None or isinstance(cfg, cls):
            return cfg
        return cls(**cfg)

    def check_outside(self, dataset_cfgs: Sequence[Any]) -> None:
        """Refuse an ``out_dir`` inside a dataset's tree (its ``data_root``
        or one of its ``data_prefix`` folders), where pictures could be
        mistaken for data.

        Args:
            dataset_cfgs (Sequence[dict]): Test dataset configs (wrappers
                are looked through).

        Raises:
            RobustDetError: Naming the folder that holds ``out_dir``.
        """
        out = osp.realpath(self.out_dir)
        for folder in dataset_dirs(dataset_cfgs):
            root = osp.realpath(folder)
            if out == root or out.startswith(root.rstrip(osp.sep) + osp.sep):
                raise RobustDetError(
                    f'--show-dir {self.out_dir} is inside the test data '
                    f'({folder}); choose a directory outside it, e.g. in '
                    'the work dir')


def _prefixes(owner: dict) -> List[str]:
    """The image folders a dataset (config or attributes) names: the
    values of its ``data_prefix`` and its other ``*_prefix`` strings
    (e.g. ``FoggyCityscapesDataset``'s ``foggy_prefix``)."""
    found = []
    for key, value in owner.items():
        if key == 'data_prefix' and isinstance(value, dict):
            found += [v for v in value.values() if isinstance(v, str) and v]
        elif key.endswith('_prefix') and isinstance(value, str) and value:
            found.append(value)
    return found


def dataset_dirs(dataset_cfgs: Sequence[Any]) -> List[str]:
    """The ``data_root`` and image folders (:func:`_prefixes`) of dataset
    configs and the datasets they wrap (``dataset=``, ``datasets=``),
    prefixes joined to their root as mmengine does."""
    found: List[str] = []

    def walk(cfg: Any) -> None:
        if isinstance(cfg, (list, tuple)):
            for item in cfg:
                walk(item)
            return
        if not isinstance(cfg, dict):
            return
        root = cfg.get('data_root') or ''
        root = root if isinstance(root, str) else ''
        if root:
            found.append(root)
        found.extend(osp.join(root, prefix) for prefix in _prefixes(cfg))
        walk(cfg.get('dataset'))
        walk(cfg.get('datasets'))

    walk(list(dataset_cfgs))
    return list(dict.fromkeys(found))


@dataclass(frozen=True)
class ShowItem:
    """An image drawn in every cell.

    Args:
        index (int): Its index in the test set.
        img_path (str): Its path (the data samples' ``img_path``).
        anchor (str, optional): Its neighbour set's ``anchor_key`` (a frame
            can be in several sets).
        name (str): Its picture's path below a cell's folder, without
            extension.
        group (str, optional): Its neighbour set, for strips of a set.
        label (str): Its label in a strip of its set (the offset).
    """
    index: int
    img_path: str
    anchor: Optional[str]
    name: str
    group: Optional[str] = None
    label: str = ''


def _relative(path: str, roots: Sequence[str]) -> str:
    """``path`` relative to the deepest root that holds it ('/'
    separators), else its file name."""
    best = None
    for root in roots:
        if not root:
            continue
        rel = osp.relpath(osp.abspath(path), osp.abspath(root))
        if not rel.startswith(osp.pardir) and (best is None
                                               or len(rel) < len(best)):
            best = rel
    return (best or osp.basename(path)).replace(osp.sep, '/')


def _image_roots(dataset: Any) -> List[str]:
    """The folders image names are relative to: each leaf dataset's image
    folders (:func:`_prefixes`, joined to its root) and ``data_root``."""
    roots: List[str] = []
    for leaf in iter_leaf_datasets(dataset):
        roots += _prefixes(vars(leaf))
        roots.append(getattr(leaf, 'data_root', None) or '')
    return roots


def choose_items(dataset: Any,
                 num: int,
                 subset: Optional[Sequence[int]] = None) -> List[ShowItem]:
    """The first ``num`` images of a test set, and their picture names:
    their paths below the image folder without extension (neighbour-set
    frames below their anchor's).

    Args:
        dataset (Dataset): The test dataset (``get_data_info``).
        num (int): How many.
        subset (Sequence[int], optional): The dataset indices the test set
            is made of, in order (``indices=`` of skipped images).
            Defaults to all.

    Returns:
        list[ShowItem]: In test set order; ``index`` is the position in
        the test set.
    """
    order = list(range(len(dataset))) if subset is None else list(subset)
    roots = _image_roots(dataset)
    items = []
    for pos, idx in enumerate(order[:num]):
        info = dataset.get_data_info(idx)
        path = info['img_path']
        name = osp.splitext(_relative(path, roots))[0]
        anchor = info.get('anchor_key')
        group = None
        if anchor is not None:
            group = osp.splitext(anchor.replace(osp.sep, '/'))[0]
            name = f'{group}/{osp.basename(name)}'
        offset = info.get('offset')
        label = '' if offset is None else f'{int(offset):+d}'
        items.append(ShowItem(pos, path, anchor, name, group, label))
    return items


def cell_folder(cell: Tuple[str, int]) -> str:
    """A cell's folder below the show dir: ``<corruption>/<severity>``
    (``clean/0`` for the clean cell)."""
    return f'{cell[0]}/{cell[1]}'


def encode_jpeg(rgb: np.ndarray) -> bytes:
    """An RGB image as JPEG bytes (the same bytes for the same image)."""
    ok, data = cv2.imencode('.jpg', np.ascontiguousarray(rgb[..., ::-1]),
                            [cv2.IMWRITE_JPEG_QUALITY, JPEG_QUALITY])
    assert ok, 'JPEG encoding failed'
    return data.tobytes()


class ShowHook(Hook):
    """Draw the chosen images of every cell (see the module's doc).

    The caller says which images (:meth:`set_source`: items, an image
    source and the dataset's metainfo) and, before each cell's iteration
    hooks, which cell is running and where its pictures go
    (:meth:`set_cell`). An image source has ``load(cell, indices)``: the
    images at those test set indices as the cell's model saw them before
    resizing, RGB uint8.

    Pictures are written as ``<out_dir>/<folder>/<item name>.jpg`` by
    rank 0, each once, from the pixels computed by the lowest rank that
    processed its image.

    Args:
        settings (ShowSettings): Where and what.
    """

    priority = 'VERY_LOW'

    def __init__(self, settings: ShowSettings) -> None:
        self.settings = settings
        # Not through get_instance: a local visualizer that is neither the
        # runner's nor registered, so it writes to no backend.
        self.visualizer = DetLocalVisualizer(name='robustdet_show')
        self.items: List[ShowItem] = []
        self.images: Any = None
        self._by_path: Dict[str, List[int]] = {}
        self.cell: Optional[Tuple[str, int]] = None
        self.folder: Optional[str] = None
        # (folder, item position) -> (cell, data sample), this epoch's.
        self.pending: Dict[Tuple[str, int], Tuple[Any, Any]] = {}

    def set_source(self, items: Sequence[ShowItem], images: Any,
                   metainfo: dict) -> None:
        """The images to draw, where their pixels come from, and the
        classes (and palette) of the dataset."""
        self.items = list(items)
        self.images = images
        self.visualizer.dataset_meta = dict(metainfo)
        self._by_path = {}
        for pos, item in enumerate(self.items):
            self._by_path.setdefault(item.img_path, []).append(pos)

    def set_cell(self, cell: Any, folder: str) -> None:
        """The cell whose outputs the next iteration hooks see (passed to
        the image source) and its pictures' folder below ``out_dir``."""
        self.cell = cell
        self.folder = folder

    def _position(self, sample: Any) -> Optional[int]:
        found = self._by_path.get(sample.metainfo.get('img_path'), ())
        if len(found) > 1 and 'anchor_key' in sample.metainfo:
            anchor = sample.metainfo['anchor_key']
            found = [p for p in found if self.items[p].anchor == anchor]
        return found[0] if found else None

    def after_test_iter(self, runner, batch_idx: int, data_batch=None,
                        outputs=None) -> None:
        """Keep the outputs of the chosen images (the first time each is
        seen in the cell)."""
        if self.folder is None:
            return
        for sample in outputs or ():
            pos = self._position(sample)
            key = (self.folder, pos)
            if pos is not None and key not in self.pending:
                self.pending[key] = (self.cell, sample.cpu())

    def after_test_epoch(self, runner, metrics=None) -> None:
        """Draw what the epoch kept (every rank takes part)."""
        self.flush()

    def flush(self) -> None:
        """Draw the kept images and write the pictures. A collective call:
        every rank must call it.

        The lowest rank that kept an image computes its pixels; rank 0
        draws and writes every picture (mmengine's visualizers draw on
        rank 0 only).
        """
        rank, world_size = rank_and_world()
        held = gather_objects(sorted(self.pending))
        owner: Dict[Tuple[str, int], int] = {}
        for who, keys in enumerate(held):
            for key in keys:
                owner.setdefault(tuple(key), who)
        mine = [k for k in sorted(self.pending) if owner[k] == rank]
        loaded = self._load(mine, encode=world_size > 1)
        self.pending = {}
        if not owner:
            return
        parts = gather_objects(loaded)
        if rank != 0:
            return
        counts: Dict[str, Counter] = {}
        for who, part in enumerate(parts):
            for folder, pos, image, sample in part:
                if isinstance(image, bytes):
                    image = cv2.imdecode(
                        np.frombuffer(image, np.uint8),
                        cv2.IMREAD_COLOR)[..., ::-1]
                rel = f'{folder}/{self.items[pos].name}.jpg'
                write_bytes_atomic(self._draw(pos, image, sample),
                                   osp.join(self.settings.out_dir, rel))
                counts.setdefault(folder, Counter())[who] += 1
        for folder, by_rank in counts.items():
            ranks = ''
            if world_size > 1:
                ranks = ' (images of ' + ', '.join(
                    f'rank {r}: {n}' for r, n in sorted(by_rank.items())) + ')'
            print_log(
                f'[show] {sum(by_rank.values())} picture(s) in '
                f'{osp.join(self.settings.out_dir, folder)}{ranks}',
                logger='current')

    def _load(self, keys: Sequence[Tuple[str, int]],
              encode: bool) -> List[tuple]:
        """``(folder, item position, image, data sample)`` of ``keys``:
        RGB images, or PNG bytes of them with ``encode`` (to send)."""
        by_folder: Dict[str, List[int]] = {}
        for folder, pos in keys:
            by_folder.setdefault(folder, []).append(pos)
        out = []
        for folder, positions in by_folder.items():
            cell, _ = self.pending[(folder, positions[0])]
            images = self.images.load(
                cell, [self.items[p].index for p in positions])
            for pos, image in zip(positions, images):
                if encode:
                    image = cv2.imencode('.png', image[..., ::-1])[1].tobytes()
                out.append((folder, pos, image, self.pending[(folder,
                                                              pos)][1]))
        return out

    def _draw(self, pos: int, image: np.ndarray, sample: Any) -> bytes:
        """The JPEG of an image's picture: ground truth | predictions."""
        self.visualizer.add_datasample(
            self.items[pos].name,
            image,
            data_sample=sample,
            draw_gt=True,
            draw_pred=True,
            pred_score_thr=self.settings.score_thr)
        return encode_jpeg(self.visualizer.get_image())


def _read_picture(out_dir: str, folder: str,
                  item: ShowItem) -> Optional[np.ndarray]:
    """A written picture (BGR), or None if there is none."""
    path = osp.join(out_dir, folder, f'{item.name}.jpg')
    return cv2.imread(path, cv2.IMREAD_COLOR) if osp.isfile(path) else None


def _halves(picture: np.ndarray) -> Tuple[np.ndarray, np.ndarray]:
    """The ground truth and prediction panels of a picture."""
    half = picture.shape[1] // 2
    return picture[:, :half], picture[:, half:]


def _labelled(tile: np.ndarray, label: str) -> np.ndarray:
    """A tile under a white bar with its label."""
    height, width = tile.shape[:2]
    bar = max(16, height // 10)
    font = cv2.FONT_HERSHEY_SIMPLEX
    scale = bar / 30
    text_width = cv2.getTextSize(label, font, scale, 1)[0][0]
    if text_width > width - 8:
        scale *= (width - 8) / text_width
    top = np.full((bar, width, 3), 255, np.uint8)
    cv2.putText(top, label, (4, bar - max(bar // 4, 3)), font, scale,
                (0, 0, 0), 1, cv2.LINE_AA)
    return np.concatenate([top, tile], axis=0)


def compose_strip(tiles: Sequence[Tuple[str, np.ndarray]],
                  gap: int = 4) -> np.ndarray:
    """Labelled tiles left to right on white, ``gap`` pixels apart.

    Args:
        tiles (Sequence[tuple]): ``(label, BGR image)`` pairs.
        gap (int): Pixels between tiles.

    Returns:
        np.ndarray: The BGR strip.
    """
    shown = [_labelled(tile, label) for label, tile in tiles]
    height = max(t.shape[0] for t in shown)
    parts = []
    for j, tile in enumerate(shown):
        if j:
            parts.append(np.full((height, gap, 3), 255, np.uint8))
        pad = height - tile.shape[0]
        parts.append(
            np.pad(tile, ((0, pad), (0, 0), (0, 0)), constant_values=255))
    return np.concatenate(parts, axis=1)


def _write_strip(path: str, tiles: Sequence[Tuple[str, np.ndarray]]) -> None:
    write_bytes_atomic(encode_jpeg(compose_strip(tiles)[..., ::-1]), path)


def write_severity_strips(settings: ShowSettings, corruptions: Sequence[str],
                          severities: Sequence[int],
                          items: Sequence[ShowItem]) -> List[str]:
    """Per corruption and image, a strip of its pictures from the
    written ones: the ground truth and the clean predictions, then the
    predictions at each severity, left to right, labelled
    (``<out_dir>/strips/<corruption>/<item name>.jpg``).

    Args:
        settings (ShowSettings): Where the pictures are.
        corruptions (Sequence[str]): The corruptions.
        severities (Sequence[int]): Their severities (0 is left out).
        items (Sequence[ShowItem]): The drawn images.

    Returns:
        list[str]: The strips written (a corruption without any picture of
        an image gets none).
    """
    out_dir = settings.out_dir
    written = []
    for item in items:
        clean = _read_picture(out_dir, cell_folder(('clean', 0)), item)
        first = []
        if clean is not None:
            truth, pred = _halves(clean)
            first = [('ground truth', truth), ('clean', pred)]
        for name in corruptions:
            tiles = list(first)
            for severity in sorted(s for s in severities if s):
                picture = _read_picture(out_dir, f'{name}/{severity}', item)
                if picture is not None:
                    tiles.append((f'severity {severity}',
                                  _halves(picture)[1]))
            if len(tiles) > len(first):
                path = osp.join(out_dir, 'strips', name, f'{item.name}.jpg')
                _write_strip(path, tiles)
                written.append(path)
    return written


def write_set_strips(settings: ShowSettings, folder: str,
                     items: Sequence[ShowItem]) -> List[str]:
    """Per neighbour set, a strip of the predictions on its drawn frames,
    by offset (``<out_dir>/strips/<folder>/<anchor>.jpg``).

    Args:
        settings (ShowSettings): Where the pictures are.
        folder (str): The cell's folder below ``out_dir``.
        items (Sequence[ShowItem]): The drawn frames.

    Returns:
        list[str]: The strips written.
    """
    groups: Dict[str, List[ShowItem]] = {}
    for item in items:
        if item.group is not None:
            groups.setdefault(item.group, []).append(item)
    written = []
    for group, members in groups.items():
        members.sort(key=lambda m: int(m.label) if m.label else 0)
        tiles = []
        for member in members:
            picture = _read_picture(settings.out_dir, folder, member)
            if picture is not None:
                tiles.append((member.label or osp.basename(member.name),
                              _halves(picture)[1]))
        if tiles:
            path = osp.join(settings.out_dir, 'strips', folder,
                            f'{group}.jpg')
            _write_strip(path, tiles)
            written.append(path)
    return written
