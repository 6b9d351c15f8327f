# Copyright (c) robustdet contributors. All rights reserved.
"""AdaIN in plain torch: shapes, exact output sizes, the AdaIN statistics,
alpha = 0 as the decoder's reconstruction, and weight loading (local
files, the torch hub cache, and the error without network or files).
Weights are generated here; nothing is downloaded."""
import os.path as osp

import numpy as np
import pytest
import torch

from robustdet.stylize import AdaIN
from robustdet.stylize import adain as adain_mod
from robustdet.stylize import (adaptive_instance_norm, build_decoder,
                               build_encoder, calc_mean_std, load_adain,
                               make_demo_adain, save_weights, weight_paths)
from robustdet.utils import RobustDetError

# Convolutions: run again held back.
pytestmark = pytest.mark.cpu_sensitive


@pytest.fixture(scope='module')
def random_model():
    torch.manual_seed(0)
    return AdaIN()


def test_architecture_matches_the_release_names():
    enc, dec = build_encoder(), build_decoder()
    assert len(enc) == adain_mod.ENCODER_LAYERS
    # First and last parameter names of the release's state dicts.
    assert list(enc.state_dict())[:2] == ['0.weight', '0.bias']
    assert list(enc.state_dict())[-2] == '29.weight'  # conv4_1
    assert enc.state_dict()['29.weight'].shape == (512, 256, 3, 3)
    assert dec.state_dict()['1.weight'].shape == (256, 512, 3, 3)
    assert list(dec.state_dict())[-1] == '28.bias'
    assert dec.state_dict()['28.weight'].shape == (3, 64, 3, 3)


@pytest.mark.parametrize('h,w', [(64, 48), (33, 47), (5, 7), (16, 9)])
def test_shapes_and_exact_output_size(random_model, h, w):
    x = torch.rand(2, 3, h, w)
    feat = random_model.encoder(adain_mod.pad_to_stride(x))
    assert feat.shape[:2] == (2, 512)
    ph = max(16, -(-h // 8) * 8)
    pw = max(16, -(-w // 8) * 8)
    assert feat.shape[2:] == (ph // 8, pw // 8)
    mean, std = random_model.style_stats(torch.rand(2, 3, 40, 24))
    assert mean.shape == std.shape == (2, 512, 1, 1)
    out = random_model(x, mean, std, alpha=1.0)
    assert out.shape == x.shape
    assert out.min() >= 0 and out.max() <= 1  # exact: clamped


def test_calc_mean_std_and_adain_statistics():
    gen = torch.Generator().manual_seed(1)
    feat = torch.rand(2, 4, 5, 6, generator=gen) * 3
    mean, std = calc_mean_std(feat)
    flat = feat.reshape(2, 4, -1).double().numpy()
    # float32 sum of n = 30 positive values: (n - 1) * 2 ** -24 = 1.7e-6
    # relative, plus the division (measured 1.1e-7)
    np.testing.assert_allclose(mean.flatten(), flat.mean(2).ravel(),
                               rtol=2e-6)
    # float32 variance of 30 values: about n * 2 ** -24 * (1 + mean^2 /
    # var) = 7e-6 relative, half of it on the std (measured 6e-8)
    np.testing.assert_allclose(
        std.flatten(), np.sqrt(flat.var(2, ddof=1) + 1e-5).ravel(),
        rtol=1e-5)
    s_mean = torch.rand(2, 4, 1, 1, generator=gen)
    s_std = torch.rand(2, 4, 1, 1, generator=gen) + 0.5
    out_mean, out_std = calc_mean_std(
        adaptive_instance_norm(feat, s_mean, s_std))
    # float32 rounding: the content mean's 1.7e-6 relative error times
    # s / std <= 2, plus the output's own sum of 30 values: about 1e-5 at
    # worst (measured 2e-7)
    torch.testing.assert_close(out_mean, s_mean, atol=1e-5, rtol=0)
    # The eps of both variances makes the std sqrt(s^2 v / (v + eps) + eps)
    # for a content variance v, not s (7e-6 off here); float32 rounding as
    # above (measured 8e-8 relative).
    var = torch.from_numpy(flat.var(2, ddof=1)).view(2, 4, 1, 1)
    want = (s_std.double()**2 * var / (var + 1e-5) + 1e-5).sqrt()
    torch.testing.assert_close(out_std.double(), want, atol=0, rtol=1e-5)


def test_alpha_zero_is_the_decoders_reconstruction(random_model):
    x = torch.rand(1, 3, 37, 50)
    expected = random_model.decoder(
        random_model.encoder(adain_mod.pad_to_stride(x)))[..., :37, :50]
    for style in (torch.rand(1, 3, 32, 32), torch.zeros(1, 3, 16, 16)):
        mean, std = random_model.style_stats(style)
        out = random_model(x, mean, std, alpha=0.0)
        # exact: the same convolutions on the same input in one process
        assert torch.equal(out, expected.clamp(0, 1))


def test_alpha_blends_features(random_model):
    x = torch.rand(1, 3, 32, 32)
    mean, std = random_model.style_stats(torch.rand(1, 3, 32, 32))
    feat = random_model.encoder(x)
    styled = adaptive_instance_norm(feat, mean, std)
    half = random_model.decoder(0.5 * styled + 0.5 * feat).clamp(0, 1)
    # exact: the same operations in one process
    assert torch.equal(random_model(x, mean, std, alpha=0.5), half)


def test_generated_weights_transfer_the_style_colour():
    model = make_demo_adain()
    content = torch.full((1, 3, 48, 64), 0.5)
    content[:, :, 10:30, 20:40] = torch.tensor([0.9, 0.1, 0.1])[:, None,
                                                                None]
    style = torch.zeros(1, 3, 64, 64)
    style[:, 2] = torch.rand(64, 64) * 0.5 + 0.5  # blue painting
    out = model(content, *model.style_stats(style), alpha=1.0)
    # Blue minus red mean: 0.790 to 0.803 over 20 seeds of the style
    # (torch.manual_seed(0..19)); 0.59 of margin.
    assert out[:, 2].mean() > out[:, 0].mean() + 0.2
    same = model(content, *model.style_stats(content), alpha=1.0)
    # Its own style keeps the colours (red patch stays red): 0.914 red and
    # 0.311 blue, 0.30 of margin (fixed weights and input).
    assert same[0, 0, 20, 30] > same[0, 2, 20, 30] + 0.3


def test_weights_roundtrip_and_release_format(tmp_path, random_model):
    save_weights(random_model, str(tmp_path))
    # The release's encoder file holds the whole VGG: extra layers load.
    enc = torch.load(tmp_path / 'vgg_normalised.pth')
    enc['31.weight'] = torch.zeros(512, 512, 3, 3)
    torch.save(enc, tmp_path / 'vgg_normalised.pth')
    loaded = load_adain(str(tmp_path))
    for a, b in zip(loaded.state_dict().values(),
                    random_model.state_dict().values()):
        assert torch.equal(a, b)


def test_bad_weight_files(tmp_path, random_model):
    with pytest.raises(RobustDetError, match='vgg_normalised.pth and '
                       'decoder.pth'):
        weight_paths(str(tmp_path))
    save_weights(random_model, str(tmp_path))
    torch.save({'0.weight': torch.zeros(1)}, tmp_path / 'decoder.pth')
    with pytest.raises(RobustDetError, match='pytorch-AdaIN weights'):
        load_adain(str(tmp_path))
    (tmp_path / 'decoder.pth').write_bytes(b'not a tensor file')
    with pytest.raises(RobustDetError, match='cannot read AdaIN weights'):
        load_adain(str(tmp_path))


def test_hub_cache_and_no_network_error(tmp_path, monkeypatch,
                                        random_model):
    monkeypatch.setattr(torch.hub, '_hub_dir', str(tmp_path / 'hub'))
    # Nowhere to download from: one clear error naming both places.
    monkeypatch.setattr(adain_mod, 'RELEASE_URL',
                        (tmp_path / 'nowhere').as_uri() + '/')
    with pytest.raises(RobustDetError) as err:
        weight_paths()
    msg = str(err.value)
    assert 'cannot download' in msg and '--weights-dir' in msg
    assert osp.join(str(tmp_path / 'hub'), 'checkpoints') in msg
    # Files in the hub cache are used without downloading.
    save_weights(random_model, str(tmp_path / 'hub' / 'checkpoints'))
    assert weight_paths() == tuple(
        str(tmp_path / 'hub' / 'checkpoints' / f)
        for f in adain_mod.WEIGHT_FILES)
    # A reachable URL goes through torch.hub into the cache.
    src = tmp_path / 'release'
    save_weights(random_model, str(src))
    monkeypatch.setattr(adain_mod, 'RELEASE_URL', src.as_uri() + '/')
    monkeypatch.setattr(torch.hub, '_hub_dir', str(tmp_path / 'hub2'))
    enc, dec = weight_paths()
    assert enc.startswith(str(tmp_path / 'hub2')) and osp.isfile(dec)
    assert isinstance(load_adain(), AdaIN)
