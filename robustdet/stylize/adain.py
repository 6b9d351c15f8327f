# Copyright (c) robustdet contributors. All rights reserved.
"""AdaIN style transfer (Huang & Belongie, 2017) in plain torch.

The networks are those of the public pytorch-AdaIN release that Michaelis
et al. (and bethgelab's stylize-datasets) used: the VGG-19 "normalised"
encoder up to relu4_1 and its mirrored decoder, as ``nn.Sequential``
stacks whose parameter names match ``vgg_normalised.pth`` and
``decoder.pth``, so those files load as they are. The encoder takes RGB
in [0, 1] (its first 1x1 convolution does the VGG preprocessing).

Two things differ from the release's ``test.py``, both so that the
stylized image can replace the original under the same annotations:

- the output has exactly the input's size: the encoder pools three times
  (``ceil_mode``) and the decoder upsamples by 8, so an image whose sides
  are not multiples of 8 is reflection-padded to the next multiple and the
  output cropped back (the release rounds the size up, shifting boxes);
- only the style's per-channel mean and standard deviation at relu4_1
  enter AdaIN, so :meth:`AdaIN.style_stats` computes them once per style
  and stylizing takes them directly (a cache of 1024 floats per style).
"""
import os
import os.path as osp
from typing import Dict, Optional, Sequence, Tuple

import torch
import torch.nn.functional as F
from torch import nn

from ..utils.errors import RobustDetError

RELEASE_URL = ('https://github.com/naoto0804/pytorch-AdaIN/releases/'
               'download/v0.0.0/')
ENCODER_FILE = 'vgg_normalised.pth'
DECODER_FILE = 'decoder.pth'
WEIGHT_FILES = (ENCODER_FILE, DECODER_FILE)
# Layers of the release's full VGG that make the encoder (up to relu4_1).
ENCODER_LAYERS = 31
# Variance epsilon of the release's calc_mean_std.
EPS = 1e-5
# The encoder pools three times: sides are padded to multiples of this.
STRIDE = 8
# Padded sides are at least this, so every reflection pad has room.
MIN_SIDE = 2 * STRIDE

# (in, out) channels of the 3x3 convolutions of VGG-19 up to relu4_1, and
# 'M' for a 2x2 max pool.
_ENCODER_PLAN = (64, 64, 'M', 128, 128, 'M', 256, 256, 256, 256, 'M', 512)
# Decoder: 3x3 convolutions (ReLU after all but the last) and 'U' for a
# nearest-neighbour x2 upsampling.
_DECODER_PLAN = (256, 'U', 256, 256, 256, 128, 'U', 128, 64, 'U', 64, 3)


def _pad_conv(cin: int, cout: int) -> list:
    return [nn.ReflectionPad2d((1, 1, 1, 1)), nn.Conv2d(cin, cout, (3, 3))]


def build_encoder() -> nn.Sequential:
    """The VGG-19 normalised encoder up to relu4_1 (31 layers, parameter
    names as in ``vgg_normalised.pth``)."""
    layers = [nn.Conv2d(3, 3, (1, 1))]
    channels = 3
    for item in _ENCODER_PLAN:
        if item == 'M':
            layers.append(
                nn.MaxPool2d((2, 2), (2, 2), (0, 0), ceil_mode=True))
        else:
            layers += _pad_conv(channels, item) + [nn.ReLU()]
            channels = item
    assert len(layers) == ENCODER_LAYERS
    return nn.Sequential(*layers)


def build_decoder() -> nn.Sequential:
    """The AdaIN decoder (relu4_1 features to RGB, parameter names as in
    ``decoder.pth``)."""
    layers = []
    channels = 512
    for item in _DECODER_PLAN:
        if item == 'U':
            layers.append(nn.Upsample(scale_factor=2, mode='nearest'))
        else:
            layers += _pad_conv(channels, item)
            if item != 3:
                layers.append(nn.ReLU())
            channels = item
    return nn.Sequential(*layers)


def calc_mean_std(feat: torch.Tensor,
                  eps: float = EPS) -> Tuple[torch.Tensor, torch.Tensor]:
    """Per-image, per-channel mean and standard deviation of ``feat``
    (N, C, H, W), as (N, C, 1, 1) each; the variance is the unbiased one
    plus ``eps``, as in the release."""
    n, c = feat.shape[:2]
    flat = feat.reshape(n, c, -1)
    std = (flat.var(dim=2) + eps).sqrt().view(n, c, 1, 1)
    return flat.mean(dim=2).view(n, c, 1, 1), std


def adaptive_instance_norm(content: torch.Tensor, style_mean: torch.Tensor,
                           style_std: torch.Tensor) -> torch.Tensor:
    """Give each channel of ``content`` the style's mean and std."""
    mean, std = calc_mean_std(content)
    return (content - mean) / std * style_std + style_mean


def pad_to_stride(images: torch.Tensor) -> torch.Tensor:
    """Pad (N, C, H, W) on the bottom and right to sides that are
    multiples of :data:`STRIDE` (at least :data:`MIN_SIDE`), reflecting
    where the image is large enough and repeating the edge otherwise."""
    h, w = images.shape[-2:]
    ph = max(MIN_SIDE, -(-h // STRIDE) * STRIDE) - h
    pw = max(MIN_SIDE, -(-w // STRIDE) * STRIDE) - w
    if not ph and not pw:
        return images
    mode = 'reflect' if ph < h and pw < w else 'replicate'
    return F.pad(images, (0, pw, 0, ph), mode=mode)


class AdaIN(nn.Module):
    """Encoder, AdaIN and decoder.

    Args:
        encoder (nn.Sequential, optional): Default :func:`build_encoder`.
        decoder (nn.Sequential, optional): Default :func:`build_decoder`.
    """

    def __init__(self,
                 encoder: Optional[nn.Sequential] = None,
                 decoder: Optional[nn.Sequential] = None) -> None:
        super().__init__()
        self.encoder = encoder if encoder is not None else build_encoder()
        self.decoder = decoder if decoder is not None else build_decoder()
        self.requires_grad_(False)
        self.eval()

    @torch.no_grad()
    def style_stats(self,
                    style: torch.Tensor) -> Tuple[torch.Tensor, torch.Tensor]:
        """relu4_1 mean and std of style images (N, 3, H, W) in [0, 1]."""
        return calc_mean_std(self.encoder(pad_to_stride(style)))

    @torch.no_grad()
    def forward(self,
                content: torch.Tensor,
                style_mean: torch.Tensor,
                style_std: torch.Tensor,
                alpha: float = 1.0) -> torch.Tensor:
        """Stylize a batch.

        Args:
            content (Tensor): (N, 3, H, W), RGB in [0, 1].
            style_mean (Tensor): (N, 512, 1, 1) from :meth:`style_stats`.
            style_std (Tensor): (N, 512, 1, 1) from :meth:`style_stats`.
            alpha (float): 1 = fully stylized, 0 = the content's own
                features (the image as the decoder reconstructs it).

        Returns:
            Tensor: (N, 3, H, W), the same size as ``content``, clamped to
            [0, 1].
        """
        h, w = content.shape[-2:]
        feat = self.encoder(pad_to_stride(content))
        if alpha > 0:
            styled = adaptive_instance_norm(feat, style_mean, style_std)
            feat = alpha * styled + (1 - alpha) * feat
        out = self.decoder(feat)[..., :h, :w]
        return out.clamp_(0, 1)


def _check_state(state: Dict[str, torch.Tensor], module: nn.Module,
                 path: str) -> Dict[str, torch.Tensor]:
    """The entries of ``state`` that ``module`` needs, checked."""
    expected = module.state_dict()
    if not isinstance(state, dict):
        raise RobustDetError(f'{path} is not a state dict')
    missing = [k for k in expected if k not in state]
    wrong = [
        k for k in expected
        if k in state and tuple(state[k].shape) != tuple(expected[k].shape)
    ]
    if missing or wrong:
        raise RobustDetError(
            f'{path} does not hold the pytorch-AdaIN weights this model '
            f'needs (missing: {missing[:3]}, wrong shape: {wrong[:3]})')
    return {k: state[k] for k in expected}


def _load_file(path: str) -> Dict[str, torch.Tensor]:
    try:
        return torch.load(path, map_location='cpu', weights_only=True)
    except Exception as e:  # unreadable, truncated or not a tensor file
        raise RobustDetError(f'cannot read AdaIN weights {path}: '
                             f'{str(e).splitlines()[0]}') from None


def hub_dir() -> str:
    """Where ``torch.hub`` caches downloaded weights."""
    return osp.join(torch.hub.get_dir(), 'checkpoints')


def _fetch(name: str) -> str:
    """Path of a release file in the torch hub cache, downloading it if it
    is not there yet."""
    path = osp.join(hub_dir(), name)
    if osp.isfile(path):
        return path
    try:
        torch.hub.load_state_dict_from_url(
            RELEASE_URL + name,
            model_dir=hub_dir(),
            map_location='cpu',
            progress=True,
            file_name=name,
            weights_only=True)
    except Exception as e:  # no network, HTTP error, disk full
        raise RobustDetError(
            f'cannot download the AdaIN weights ({RELEASE_URL}{name}: '
            f'{str(e).splitlines()[0] if str(e) else type(e).__name__}). '
            f'Download {" and ".join(WEIGHT_FILES)} from {RELEASE_URL} and '
            f'either put them in {hub_dir()} or pass their directory as '
            '--weights-dir') from None
    return path


def weight_paths(weights_dir: Optional[str] = None) -> Tuple[str, str]:
    """Paths of the encoder and decoder weight files: from
    ``weights_dir``, or from the torch hub cache (downloaded once)."""
    if weights_dir is None:
        return _fetch(ENCODER_FILE), _fetch(DECODER_FILE)
    paths = tuple(osp.join(weights_dir, f) for f in WEIGHT_FILES)
    missing = [p for p in paths if not osp.isfile(p)]
    if missing:
        raise RobustDetError(
            f'AdaIN weights not found: {", ".join(missing)}; --weights-dir '
            f'must hold {" and ".join(WEIGHT_FILES)} (from {RELEASE_URL})')
    return paths


def load_adain(weights_dir: Optional[str] = None) -> AdaIN:
    """The AdaIN model with the release weights (on the CPU).

    Args:
        weights_dir (str, optional): Directory with ``vgg_normalised.pth``
            and ``decoder.pth``. Default: the torch hub cache
            (``torch.hub.get_dir()/checkpoints``), downloading the files
            there once; with no network and no files, a
            :class:`RobustDetError` says where to put them.

    Returns:
        AdaIN: In eval mode, without gradients.
    """
    enc_path, dec_path = weight_paths(weights_dir)
    model = AdaIN()
    model.encoder.load_state_dict(
        _check_state(_load_file(enc_path), model.encoder, enc_path))
    model.decoder.load_state_dict(
        _check_state(_load_file(dec_path), model.decoder, dec_path))
    return model


def save_weights(model: AdaIN, weights_dir: str) -> Sequence[str]:
    """Write ``model``'s weights as the release's two files (the encoder
    with only its relu4_1 part), e.g. for generated test weights."""
    os.makedirs(weights_dir, exist_ok=True)
    paths = []
    for name, part in zip(WEIGHT_FILES, (model.encoder, model.decoder)):
        path = osp.join(weights_dir, name)
        torch.save(part.state_dict(), path)
        paths.append(path)
    return paths
