# Copyright (c) robustdet contributors. All rights reserved.
"""Each image of a dataset under several corruptions: one load, K cells."""
import copy
from typing import Any, Dict, List, Optional, Sequence, Tuple, Union

from mmdet.registry import DATASETS, TRANSFORMS
from mmengine.dataset import BaseDataset, Compose

from ..corruptions import CLEAN_SEVERITY, DEFAULT_BACKEND, check_severity
from ..utils.errors import RobustDetError
from .corrupted import WrappedDataset, loading_index
from .transforms import CorruptImage

Cell = Tuple[str, int]


def _run(transforms: Sequence[Any], data: Any) -> Any:
    """Apply transforms in order as ``Compose`` does (None stops)."""
    for t in transforms:
        data = t(data)
        if data is None:
            return None
    return data


class MultiCellPipeline(Compose):
    """A pipeline that loads an image once and returns one sample per cell.

    It runs the original pipeline up to and including the image loading
    step once, then, for each active cell, a copy of that result through
    the cell's :class:`CorruptImage` (none for the clean cell) and the rest
    of the pipeline. Each cell's sample is what the one-cell pipeline (a
    :class:`~robustdet.datasets.CorruptedDataset`) gives, bit for bit: the
    corruption seeds depend on the image and the cell only.

    Args:
        pipeline (Compose): The dataset's built pipeline (not modified).
        corrupters (dict): ``{cell: CorruptImage or None}`` for every cell
            the pipeline may be asked for.
    """

    #: Tells :func:`~robustdet.datasets.corrupted.loading_index` that this
    #: pipeline must not be corrupted again.
    corrupts_images = True

    def __init__(self, pipeline: Compose,
                 corrupters: Dict[Cell, Optional[CorruptImage]]) -> None:
        split = loading_index(pipeline) + 1
        self.transforms = list(pipeline.transforms)
        self.head = self.transforms[:split]
        self.tail = self.transforms[split:]
        self.corrupters = dict(corrupters)
        self.active: List[Cell] = list(corrupters)

    def __call__(self, data: dict) -> Optional[List[Any]]:
        """Load once, then corrupt and finish the pipeline per active cell.

        Args:
            data (dict): The data info of one image.

        Returns:
            list | None: One sample per active cell, in order; None if any
            step returned None.
        """
        data = _run(self.head, data)
        if data is None:
            return None
        samples = []
        last = len(self.active) - 1
        for j, cell in enumerate(self.active):
            # Every cell but the last gets its own copy of the loaded image.
            sample = data if j == last else copy.deepcopy(data)
            sample = _run(self.tail, self.corrupt(sample, cell))
            if sample is None:
                return None
            samples.append(sample)
        return samples

    def load_and_corrupt(self, data: dict, cell: Cell) -> Optional[dict]:
        """One cell's sample as the rest of the pipeline would get it:
        loaded and corrupted (None if a loading step returned None)."""
        data = _run(self.head, data)
        return None if data is None else self.corrupt(data, cell)

    def corrupt(self, sample: dict, cell: Cell) -> dict:
        """A loaded sample corrupted for a cell (unchanged when clean)."""
        corrupter = self.corrupters[cell]
        return sample if corrupter is None else corrupter(sample)

    def __repr__(self) -> str:
        return (f'{type(self).__name__}(head={self.head}, cells='
                f'{list(self.corrupters)}, tail={self.tail})')


@DATASETS.register_module()
class MultiCorruptedDataset(WrappedDataset):
    """Every image of a dataset under several (corruption, severity) cells,
    loaded and decoded once.

    ``dataset[i]`` is the list of the i-th image's samples, one per cell in
    ``cells`` order, each identical to ``CorruptedDataset(dataset,
    corruption, severity, seed, ...)[i]`` (or the plain dataset's for a
    clean cell). :meth:`get` returns a subset of the cells.
    ``tools/test_robust.py --cells-per-pass K`` evaluates K cells per data
    pass with it.

    Example config::

        dataset = dict(
            type='MultiCorruptedDataset',
            cells=[('clean', 0), ('fog', 3), ('gaussian_noise', 1)],
            dataset=dict(type='CocoDataset', ...))

    Args:
        dataset (dict | BaseDataset): The dataset (config) to corrupt. A
            built dataset is used (its leaf pipelines replaced), not copied.
        cells (Sequence[Sequence]): ``(corruption, severity)`` pairs;
            severity 0 is the clean image (its name is not looked up).
        seed (int): Run seed; per-image seeds are derived from it as in
            :class:`CorruptImage`.
        backend (str): Corruption backend.
        channel_order (str): ``'rgb'`` or ``'bgr'``, see
            :class:`CorruptImage`.
        lazy_init (bool): Whether to defer loading annotations.
        region (str): ``'all'``, ``'objects'`` or ``'background'``, see
            :class:`CorruptImage`.
        depth (dict, optional): Where each image's depth map is, for the
            corruptions that need one (a
            :class:`~robustdet.datasets.depth.DepthSource` config).
    """

    def __init__(self,
                 dataset: Union[dict, BaseDataset],
                 cells: Sequence[Sequence],
                 seed: int = 0,
                 backend: str = DEFAULT_BACKEND,
                 channel_order: str = 'rgb',
                 lazy_init: bool = False,
                 region: str = 'all',
                 depth: Optional[dict] = None) -> None:
        cells = [(str(c[0]), check_severity(int(c[1]), allow_clean=True))
                 for c in cells]
        if not cells:
            raise RobustDetError('MultiCorruptedDataset needs cells')
        if len(set(cells)) != len(cells):
            raise RobustDetError(f'repeated cells in {cells}')
        self.cells: List[Cell] = cells
        self.seed = seed
        self.backend = backend
        self.channel_order = channel_order
        self.region = region
        self.depth = depth
        self._pipelines: List[MultiCellPipeline] = []
        for leaf in self._wrap(dataset):
            corrupters = {
                cell: self._corrupter(cell, getattr(leaf, 'data_root', None))
                for cell in cells
            }
            leaf.pipeline = MultiCellPipeline(leaf.pipeline, corrupters)
            self._pipelines.append(leaf.pipeline)
        self._finish_init(lazy_init)

    def _corrupter(self, cell: Cell,
                   path_root: Optional[str]) -> Optional[CorruptImage]:
        name, severity = cell
        if severity == CLEAN_SEVERITY:
            return None
        return TRANSFORMS.build(
            dict(
                type=CorruptImage.__name__,
                corruption=name,
                severity=severity,
                seed=self.seed,
                backend=self.backend,
                channel_order=self.channel_order,
                path_root=path_root,
                region=self.region,
                depth=self.depth))

    def get(self, idx: int, cells: Optional[Sequence[Cell]] = None) -> list:
        """The ``idx``-th image's samples for some of the cells.

        Args:
            idx (int): Image index.
            cells (Sequence[Cell], optional): A subset of ``self.cells``, in
                the order wanted. Defaults to all.

        Returns:
            list: One sample per cell.
        """
        active = self.cells if cells is None else [
            (c[0], int(c[1])) for c in cells
        ]
        unknown = [c for c in active if c not in self.cells]
        if unknown:
            raise KeyError(f'cells {unknown} are not among {self.cells}')
        for pipeline in self._pipelines:
            pipeline.active = active
        return self.dataset[idx]

    def __getitem__(self, idx: int) -> list:
        return self.get(idx)

    def __repr__(self) -> str:
        return (f'{type(self).__name__}(cells={self.cells}, '
                f'seed={self.seed}, backend={self.backend!r}, '
                f'channel_order={self.channel_order!r}, '
                f'region={self.region!r}, '
                f'dataset={type(self.dataset).__name__})')
