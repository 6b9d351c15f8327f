# Copyright (c) robustdet contributors. All rights reserved.
"""Generated AdaIN weights for machines without the release files.

The demo and the tests run where nothing can be downloaded, so they use
weights written down here instead of trained ones. They fill the release's
exact architecture (so the same loading, padding, AdaIN and decoding code
runs) with hand-set filters:

- encoder: the RGB channels and four oriented edge responses of the grey
  image (x+, x-, y+, y-), box-blurred before each pool so that max pooling
  behaves like downsampling; relu4_1 holds these 7 maps at 1/8 resolution
  (the other 505 channels are zero);
- decoder: the RGB maps plus a quarter of the total edge energy, upsampled by 8
  with a box blur after each nearest-neighbour step.

AdaIN then moves the content's colour and edge statistics to the style's:
a global colour and contrast transfer with some texture, at 1/8 of the
resolution. That is far weaker than the trained networks (no brush
strokes, a blurrier image); results obtained with these weights must say
so.
"""
import torch

from .adain import AdaIN

# Relu4_1 channels the generated encoder fills: R, G, B, dx+, dx-, dy+, dy-.
NUM_MAPS = 7
EDGE_GAIN = 4.0
EDGE_TO_RGB = 0.25


def _center(conv: torch.nn.Conv2d, channels: int) -> None:
    """Pass the first ``channels`` channels through unchanged."""
    for c in range(channels):
        conv.weight[c, c, 1, 1] = 1.0


def _box(conv: torch.nn.Conv2d, channels: int) -> None:
    """Box-blur (3x3) the first ``channels`` channels."""
    for c in range(channels):
        conv.weight[c, c] = 1.0 / 9.0


def _convs(seq: torch.nn.Sequential) -> list:
    return [m for m in seq if isinstance(m, torch.nn.Conv2d)]


@torch.no_grad()
def make_demo_adain() -> AdaIN:
    """An :class:`AdaIN` with the generated weights described above."""
    model = AdaIN()
    for conv in _convs(model.encoder) + _convs(model.decoder):
        conv.weight.zero_()
        conv.bias.zero_()

    first, *enc = _convs(model.encoder)
    first.weight[:, :, 0, 0] = torch.eye(3)
    conv1_1 = enc[0]
    _center(conv1_1, 3)
    dx = torch.tensor([[0., 0., 0.], [-1., 0., 1.], [0., 0., 0.]])
    for k, kernel in enumerate((dx, -dx, dx.t(), -dx.t())):
        conv1_1.weight[3 + k, :3] = kernel * EDGE_GAIN / 6.0  # grey = mean
    # Blur before each of the three pools, pass through elsewhere.
    for i, conv in enumerate(enc[1:], start=1):
        (_box if i in (1, 3, 7) else _center)(conv, NUM_MAPS)

    dec = _convs(model.decoder)
    _center(dec[0], 3)
    dec[0].weight[:3, 3:NUM_MAPS, 1, 1] = EDGE_TO_RGB
    # Blur right after each upsampling (convs 1, 5 and 7), else identity.
    for i, conv in enumerate(dec[1:], start=1):
        (_box if i in (1, 5, 7) else _center)(conv, 3)
    return model
