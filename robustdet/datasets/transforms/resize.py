# Copyright (c) robustdet contributors. All rights reserved.
import mmcv
from mmdet.datasets.transforms import Resize
from mmdet.registry import TRANSFORMS


@TRANSFORMS.register_module()
class DeferredResize(Resize):
    """mmdet's ``Resize`` without the pixel work: the image keeps its size,
    everything else is what ``Resize`` does.

    ``tools/test_robust.py --backend torch`` corrupts each image at its
    original resolution on the model's device, after the CPU pipeline,
    so the pipeline must not resize it. This transform takes the place of
    the test pipeline's ``Resize`` (same arguments): it sets ``img_shape``
    to the size ``Resize`` would give the image (``mmcv.rescale_size``
    with ``keep_ratio``, else ``scale``) and ``scale_factor``,
    ``keep_ratio``, ``scale`` and ``homography_matrix`` as ``Resize``
    does, and rescales boxes, masks and segmentation maps with them, all
    with ``Resize``'s own code. The data samples therefore carry exactly
    the metainfo of the CPU path, and
    :class:`robustdet.models.CorruptingDataPreprocessor` resizes the
    (corrupted) image to ``img_shape``.

    Required Keys:

    - img
    - gt_bboxes (BaseBoxes[torch.float32]) (optional)
    - gt_masks (BitmapMasks | PolygonMasks) (optional)
    - gt_seg_map (np.uint8) (optional)

    Modified Keys:

    - img_shape (the resized size; ``img`` itself is not modified)
    - gt_bboxes
    - gt_masks
    - gt_seg_map

    Added Keys:

    - scale
    - scale_factor
    - keep_ratio
    - homography_matrix

    Args:
        As mmdet's ``Resize``. :meth:`from_resize` copies a built one.
    """

    @classmethod
    def from_resize(cls, resize: Resize) -> 'DeferredResize':
        """The deferred version of a built ``Resize`` (same settings).

        Args:
            resize (Resize): A built mmdet ``Resize``.

        Returns:
            DeferredResize: A transform with the same state.
        """
        deferred = cls.__new__(cls)
        deferred.__dict__.update(resize.__dict__)
        return deferred

    def _resize_img(self, results: dict) -> None:
        """Set what ``Resize._resize_img`` sets, without resizing."""
        img = results.get('img', None)
        if img is None:
            return
        h, w = img.shape[:2]
        if self.keep_ratio:
            # What mmcv.imrescale resizes to.
            new_w, new_h = mmcv.rescale_size((w, h), results['scale'])
        else:
            # What mmcv.imresize resizes to.
            new_w, new_h = results['scale']
        results['img_shape'] = (new_h, new_w)
        results['scale_factor'] = (new_w / w, new_h / h)
        results['keep_ratio'] = self.keep_ratio
