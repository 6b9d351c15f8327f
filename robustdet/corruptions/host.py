# Copyright (c) robustdet contributors. All rights reserved.
"""The CPU part of the torch backend's corruptions, apart from torch.

Some corruptions of :mod:`.torch_backend` cannot run wholly on the device
without changing what they compute: their random numbers come from the
reference's stream (``np.random.RandomState(seed)``, in the reference's
order), glass_blur's shuffle is sequential, frost's texture is read from
files, and JPEG has no device codec. These steps are here, in numpy, so
that a dataloader worker can run them (:func:`host_inputs`) while the
model works on the previous batch; the device part takes their result
(``corrupt_batch(..., host=)``) or, without one, runs them itself
(:func:`host_draws`). Either way the pixels are the same.
"""
from typing import Any, Callable, Dict, List, Optional, Sequence

import numpy as np

from . import common, fast
from .table import check_channel_order

# Corruption name -> function(c, seed, height, width) -> dict of numpy
# arrays: the steps of a corruption that run on the CPU (its random
# numbers from the reference's stream, the glass shuffle, the frost
# texture).
_HOST: Dict[str, Callable[..., Dict[str, Any]]] = {}
# Host steps that need the image itself (jpeg: no codec on the device).
_HOST_IMAGE: Dict[str, Callable[..., Dict[str, Any]]] = {}


def _host_step(name: str):

    def wrap(fn):
        _HOST[name] = fn
        return fn

    return wrap


def host_draws(name: str, c, seeds: Sequence[int], h: int, w: int,
               host: Optional[Sequence[Optional[dict]]]) -> List[dict]:
    """Each image's CPU part of a corruption: the one given (computed in
    a dataloader worker), else computed here.

    Args:
        name (str): A corruption with a CPU part that reads no pixels.
        c: Its parameters at the severity (:func:`.common.params`).
        seeds (Sequence[int]): The images' seeds.
        h (int): Their height.
        w (int): Their width.
        host (Sequence[dict | None], optional): What was given per image.

    Returns:
        list[dict]: One per image.
    """
    if host is None:
        host = [None] * len(seeds)
    return [
        given if given is not None else _HOST[name](c, seed, h, w)
        for given, seed in zip(host, seeds)
    ]


def host_inputs(img: np.ndarray,
                name: str,
                severity: int,
                seed: int,
                channel_order: str = 'rgb') -> Optional[Dict[str, Any]]:
    """The CPU part of a corruption of one image, for the ``host`` of
    :func:`.torch_backend.corrupt_batch`: what its device part would
    otherwise compute on the CPU before the device can start (random
    fields drawn from the reference's stream, the glass shuffle, the
    frost texture, the JPEG codec). None for corruptions without one.

    Args:
        img (np.ndarray): The RGB uint8 image, H×W×3 (its size decides
            the draws; JPEG also reads its pixels).
        name (str): Corruption name.
        severity (int): 1-5.
        seed (int): The image's seed.
        channel_order (str): As in :func:`.torch_backend.corrupt_batch`.

    Returns:
        dict, optional: Numpy arrays and numbers.
    """
    if severity == 0 or (name not in _HOST and name not in _HOST_IMAGE):
        return None
    c = common.params(name, severity)
    if name in _HOST_IMAGE:
        if check_channel_order(channel_order) == 'bgr':
            img = img[..., ::-1]
        return host_image_step(name, np.ascontiguousarray(img), c)
    return _HOST[name](c, seed, *img.shape[:2])


def _glass_permutation(height: int, width: int, delta: int, iterations: int,
                       seed: int) -> np.ndarray:
    """Where glass_blur's shuffle takes each pixel from (flat indices).

    The shuffle only copies whole pixels, so running it on an image whose
    pixels are their own indices (a uint32 in four uint8 channels) gives
    the source of every output pixel.
    """
    index = np.arange(height * width, dtype='<u4').view(np.uint8)
    index = index.reshape(height, width, 4)
    common.glass_shuffle(index, delta, iterations, seed)
    return index.view('<u4').reshape(-1).astype(np.int64)


@_host_step('glass_blur')
def _glass_host(c, seed, h, w):
    _, delta, iterations = c
    return dict(perm=_glass_permutation(h, w, delta, iterations, seed))


@_host_step('snow')
def _snow_host(c, seed, h, w):
    loc, scale = c[:2]
    rng = np.random.RandomState(seed)
    flakes = rng.normal(size=(h, w), loc=loc, scale=scale)
    return dict(flakes=flakes, angle=rng.uniform(-135, -45))


@_host_step('frost')
def _frost_host(c, seed, h, w):
    index, top, left = common.frost_draw(np.random.RandomState(seed), h, w)
    texture = common.frost_rescaled(index, h, w)
    return dict(texture=texture[top:top + h, left:left + w])


@_host_step('fog')
def _fog_host(c, seed, h, w):
    mapsize = common.next_power_of_2(max(h, w))
    return dict(fractal=np.ascontiguousarray(common.plasma_fractal(
        np.random.RandomState(seed), mapsize, c[1])[:h, :w]))


@_host_step('elastic_transform')
def _elastic_host(c, seed, h, w):
    limit = h * 0.005
    return dict(fields=np.random.RandomState(seed).uniform(
        -limit, limit, size=(2, h, w)))


@_host_step('spatter')
def _spatter_host(c, seed, h, w):
    loc, scale = c[:2]
    return dict(liquid=np.random.RandomState(seed).normal(
        size=(h, w), loc=loc, scale=scale))


def _jpeg_host(img, c):
    return dict(image=fast.jpeg_compression(img, c, 0))


_HOST_IMAGE['jpeg_compression'] = _jpeg_host


def host_image_step(name: str, img: np.ndarray, c) -> Dict[str, Any]:
    """The CPU part of a corruption that reads the image (JPEG), on an
    RGB uint8 H×W×3 image in the orientation the corruption sees."""
    return _HOST_IMAGE[name](img, c)


#: The corruptions with a CPU part.
HOST_STEPS = frozenset(_HOST) | frozenset(_HOST_IMAGE)
