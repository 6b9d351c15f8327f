# Copyright (c) robustdet contributors. All rights reserved.
"""RoIAlign on the CPU, bit-identical to mmcv's and several times faster.

On a CPU, mmcv's ``roi_align`` is most of a two-stage detector's test time
(the demo Faster R-CNN: ~70 ms of ~130 ms per image): two float divisions
per sample and channel for a max-pool argmax that average pooling never
uses, and a strided walk over the channels. :class:`FastRoIAlign`
computes the same numbers with a numba kernel that computes each sample's
weights once and then runs over the channels as contiguous vectors (the
feature map is read channels-last): 6.7x faster on one thread in
``tools/benchmarks/bench_roi_align.py`` (8000 demo-sized RoIs). It
stays on one thread on purpose: the model's own torch threads and the
dataloader workers share the cores, and a parallel kernel slowed down
several-fold when another process competed for them.

"Same numbers" is exact, not approximate: each output element is built
from the same float32 operations in the same order as mmcv's
``ROIAlignForward`` (sample grid, bilinear weights, the four products
summed left to right, samples accumulated in row-major order, then
divided by the count), with no fused multiply-adds and no reassociation.
The tests compare with ``torch.equal``.

Anything the kernel does not cover falls back to mmcv unchanged: CUDA or
non-float32 tensors, max pooling, torchvision's implementation, inputs
that need gradients, and RoIs mmcv rejects (negative size when aligned),
so mmcv also raises its own errors.
"""
import math
from typing import Any

import numpy as np
import torch
from mmcv.ops import RoIAlign
from numba import njit


@njit('void(float32[:, :, :, ::1], float32[:, ::1], float32[:, :, :, ::1], '
      'float32, intp, boolean)',
      cache=True,
      nogil=True)
def roi_align_nhwc(feat, rois, out, spatial_scale, sampling_ratio,
                   aligned):  # pragma: no cover
    """Average RoIAlign of channels-last ``feat`` (N, H, W, C) into ``out``
    (R, C, PH, PW), one RoI ``(batch_index, x1, y1, x2, y2)`` per row of
    ``rois``, with mmcv's float32 arithmetic (see the module docstring).
    """
    height, width, channels = feat.shape[1], feat.shape[2], feat.shape[3]
    pooled_h, pooled_w = out.shape[2], out.shape[3]
    f_height = np.float32(height)
    f_width = np.float32(width)
    f_pooled_h = np.float32(pooled_h)
    f_pooled_w = np.float32(pooled_w)
    one = np.float32(1.0)
    offset = np.float32(0.5) if aligned else np.float32(0.0)
    for n in range(rois.shape[0]):
        b = int(rois[n, 0])
        start_w = rois[n, 1] * spatial_scale - offset
        start_h = rois[n, 2] * spatial_scale - offset
        roi_w = (rois[n, 3] * spatial_scale - offset) - start_w
        roi_h = (rois[n, 4] * spatial_scale - offset) - start_h
        if not aligned:
            roi_w = max(roi_w, one)
            roi_h = max(roi_h, one)
        bin_h = roi_h / f_pooled_h
        bin_w = roi_w / f_pooled_w
        if sampling_ratio > 0:
            grid_h = sampling_ratio
            grid_w = sampling_ratio
        else:
            grid_h = int(math.ceil(roi_h / f_pooled_h))
            grid_w = int(math.ceil(roi_w / f_pooled_w))
        count = np.float32(max(grid_h * grid_w, 1))
        f_grid_h = np.float32(grid_h)
        f_grid_w = np.float32(grid_w)
        acc = np.empty(channels, np.float32)
        for ph in range(pooled_h):
            for pw in range(pooled_w):
                acc[:] = 0
                for iy in range(grid_h):
                    y = (start_h + np.float32(ph) * bin_h) + (
                        np.float32(iy + 0.5) * bin_h) / f_grid_h
                    for ix in range(grid_w):
                        x = (start_w + np.float32(pw) * bin_w) + (
                            np.float32(ix + 0.5) * bin_w) / f_grid_w
                        if (y < -1.0 or y > f_height or x < -1.0
                                or x > f_width):
                            # mmcv's "empty" sample: weights 0 at pixel 0
                            # (0 * value, so a non-finite pixel 0 still
                            # propagates as it does there).
                            y0 = y1 = x0 = x1 = 0
                            w1 = w2 = w3 = w4 = np.float32(0.0)
                        else:
                            yc = y
                            xc = x
                            if yc <= 0:
                                yc = np.float32(0.0)
                            if xc <= 0:
                                xc = np.float32(0.0)
                            y0 = int(yc)
                            x0 = int(xc)
                            if y0 >= height - 1:
                                y0 = y1 = height - 1
                                yc = np.float32(y0)
                            else:
                                y1 = y0 + 1
                            if x0 >= width - 1:
                                x0 = x1 = width - 1
                                xc = np.float32(x0)
                            else:
                                x1 = x0 + 1
                            ly = yc - np.float32(y0)
                            lx = xc - np.float32(x0)
                            hy = one - ly
                            hx = one - lx
                            w1 = hy * hx
                            w2 = hy * lx
                            w3 = ly * hx
                            w4 = ly * lx
                        p1 = feat[b, y0, x0]
                        p2 = feat[b, y0, x1]
                        p3 = feat[b, y1, x0]
                        p4 = feat[b, y1, x1]
                        for c in range(channels):
                            acc[c] += ((w1 * p1[c] + w2 * p2[c]) +
                                       w3 * p3[c]) + w4 * p4[c]
                for c in range(channels):
                    out[n, c, ph, pw] = acc[c] / count


def _kernel_applies(layer: RoIAlign, feat: torch.Tensor,
                    rois: torch.Tensor) -> bool:
    """Whether the kernel computes exactly what mmcv would for this call."""
    if (layer.use_torchvision or layer.pool_mode != 'avg'
            or feat.device.type != 'cpu' or feat.dtype != torch.float32
            or rois.dtype != torch.float32 or feat.dim() != 4
            or rois.dim() != 2 or rois.size(1) != 5 or rois.size(0) == 0):
        return False
    if torch.is_grad_enabled() and (feat.requires_grad or rois.requires_grad):
        return False
    if layer.aligned:
        # mmcv asserts non-negative RoI sizes; let it raise its own error.
        scale = np.float32(layer.spatial_scale)
        box = rois[:, 1:].detach().numpy() * scale - np.float32(0.5)
        if ((box[:, 2] - box[:, 0]) < 0).any() or (
            (box[:, 3] - box[:, 1]) < 0).any():
            return False
    batch = rois[:, 0]
    return bool(((batch >= 0) & (batch < feat.size(0))).all())


class FastRoIAlign(RoIAlign):
    """mmcv's :class:`~mmcv.ops.RoIAlign`, with a faster CPU kernel for
    average pooling whose outputs are identical to mmcv's (see the module
    docstring); every other case runs mmcv's own code.

    Same arguments as :class:`~mmcv.ops.RoIAlign`.
    """

    def forward(self, input: torch.Tensor,
                rois: torch.Tensor) -> torch.Tensor:
        """Pool ``rois`` (R, 5) from ``input`` (N, C, H, W) into
        (R, C, out_h, out_w)."""
        if not _kernel_applies(self, input, rois):
            return super().forward(input, rois)
        out_h, out_w = self.output_size
        feat = input.detach().permute(0, 2, 3, 1).contiguous().numpy()
        out = input.new_empty((rois.size(0), input.size(1), out_h, out_w))
        roi_align_nhwc(feat,
                       rois.detach().contiguous().numpy(), out.numpy(),
                       np.float32(self.spatial_scale),
                       int(self.sampling_ratio), bool(self.aligned))
        return out

    @classmethod
    def from_mmcv(cls, layer: RoIAlign) -> 'FastRoIAlign':
        """A :class:`FastRoIAlign` with ``layer``'s settings."""
        return cls(layer.output_size, layer.spatial_scale,
                   layer.sampling_ratio, layer.pool_mode, layer.aligned,
                   layer.use_torchvision)


def use_fast_roi_align(model: Any) -> int:
    """Swap every mmcv :class:`~mmcv.ops.RoIAlign` inside ``model`` for a
    :class:`FastRoIAlign` with the same settings (in place).

    The model's outputs do not change; on a CPU its RoI heads get faster.
    Layers of other types (including subclasses of RoIAlign other than
    mmcv's own) are left alone.

    Args:
        model (torch.nn.Module): The detector.

    Returns:
        int: How many layers were swapped.
    """
    swapped = 0
    for module in model.modules():
        for name, child in module.named_children():
            if type(child) is RoIAlign:
                setattr(module, name, FastRoIAlign.from_mmcv(child))
                swapped += 1
    return swapped
