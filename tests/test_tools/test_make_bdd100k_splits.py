# Copyright (c) robustdet contributors. All rights reserved.
"""The BDD100k weather / time-of-day splits and their tool."""
import hashlib
import importlib.util
import json
import os
import os.path as osp
import sys

import pytest

from robustdet.apis.bdd100k_splits import (make_bdd100k_splits, sample_names,
                                           write_bdd100k_splits)
from robustdet.datasets import write_coco_annotations
from robustdet.utils import RobustDetError
from tests.conftest import REPO
from tests.tool_process import run_tool

# Val frames per weather and per time of day (each weather's frames cycle
# through the times of day).
WEATHER = dict(clear=12, rainy=8, snowy=6, foggy=3, overcast=3,
               undefined=1)
WEATHER['partly cloudy'] = 2
TIMES = ('daytime', 'night', 'dawn/dusk', 'daytime', 'night', 'undefined')


def _frames(prefix, weather_counts):
    frames = []
    for weather, count in weather_counts.items():
        for i in range(count):
            frames.append(
                dict(
                    name=f'{prefix}{weather[:2]}{i:03d}.jpg',
                    attributes=dict(
                        weather=weather,
                        timeofday=TIMES[(len(frames) + i) % len(TIMES)],
                        scene='highway'),
                    labels=[
                        dict(
                            id=str(i),
                            category='car',
                            box2d=dict(x1=1, y1=2, x2=10.5, y2=20)),
                        dict(
                            id=str(i),
                            category='other vehicle',
                            box2d=dict(x1=20, y1=2, x2=30, y2=20))
                    ]))
    return frames


def _attr(frames, name, key):
    return next(f for f in frames if f['name'] == name)['attributes'][key]


@pytest.fixture
def labels(tmp_path):
    val, train = _frames('v', WEATHER), _frames('t', dict(clear=4, rainy=2))
    paths = {}
    for split, frames in (('val', val), ('train', train)):
        paths[split] = str(tmp_path / f'det_{split}.json')
        with open(paths[split], 'w') as f:
            json.dump(frames, f)
    return dict(val=val, train=train, paths=paths)


def test_lists_sizes_and_exclusions(labels):
    val, train = labels['val'], labels['train']
    out = make_bdd100k_splits(val, train, seed=0)
    lists = out['lists']
    assert sorted(lists) == sorted([
        'val_clear', 'val_rainy', 'val_snowy', 'val_daytime', 'val_night',
        'train_clear', 'train_daytime'
    ])
    n_day = sum(f['attributes']['timeofday'] == 'daytime' for f in val)
    n_night = sum(f['attributes']['timeofday'] == 'night' for f in val)
    assert out['summary']['sizes'] == dict(
        weather=6, timeofday=min(n_day, n_night))
    for name, names in lists.items():
        assert names == sorted(set(names))
        split, value = name.split('_', 1)
        key = 'weather' if value in WEATHER else 'timeofday'
        frames = val if split == 'val' else train
        assert all(_attr(frames, n, key) == value for n in names), name
    assert len(lists['val_snowy']) == 6 == len(lists['val_clear'])
    assert len(lists['val_daytime']) == len(lists['val_night'])
    assert lists['val_snowy'] == sorted(
        f['name'] for f in val if f['attributes']['weather'] == 'snowy')
    # Training lists hold every clear / daytime training frame.
    assert lists['train_clear'] == sorted(
        f['name'] for f in train if f['attributes']['weather'] == 'clear')
    assert len(lists['train_daytime']) == sum(
        f['attributes']['timeofday'] == 'daytime' for f in train)
    available = out['summary']['available']['val']
    assert available['weather']['clear'] == 12
    assert available['weather']['partly cloudy'] == 2
    assert available['timeofday']['daytime'] == n_day
    assert 'train' not in make_bdd100k_splits(val)['summary']['available']


def test_sampling_is_seeded_and_order_free(labels):
    val = labels['val']
    a = make_bdd100k_splits(val, seed=3)['lists']
    assert make_bdd100k_splits(val[::-1], seed=3)['lists'] == a
    b = make_bdd100k_splits(val, seed=4)['lists']
    assert a['val_clear'] != b['val_clear']
    assert a['val_snowy'] == b['val_snowy']  # all 6 snowy frames
    small = make_bdd100k_splits(val, seed=3, weather_size=4,
                                time_size=2)['lists']
    assert len(small['val_rainy']) == 4 and len(small['val_night']) == 2
    assert set(small['val_clear']) <= set(a['val_clear'])
    names = [f'{i}.jpg' for i in range(50)]
    assert sample_names(names, 10, 0, 'k') == sample_names(
        names[::-1], 10, 0, 'k')
    assert sample_names(names, 10, 0, 'k') != sample_names(
        names, 10, 0, 'other')


def test_user_errors_write_nothing(labels, tmp_path):
    val = labels['paths']['val']
    out = tmp_path / 'out'
    with pytest.raises(RobustDetError,
                       match=r'--weather-size 7 is more than the 6 snowy '
                       r'frames .*clear=12, rainy=8, snowy=6'):
        write_bdd100k_splits(str(out), val, weather_size=7, coco=True)
    with pytest.raises(RobustDetError, match='--time-size must be >= 1'):
        write_bdd100k_splits(str(out), val, time_size=0)
    with pytest.raises(RobustDetError, match='has no snowy frames'):
        make_bdd100k_splits(_frames('x', dict(clear=2, rainy=2)))
    frames = labels['val'] + [dict(name='odd.jpg', attributes={})]
    with pytest.raises(RobustDetError,
                       match="frame 'odd.jpg' has no weather attribute"):
        make_bdd100k_splits(frames)
    # A bad training file fails after the val lists are made: still
    # nothing written.
    bad = tmp_path / 'bad_train.json'
    bad.write_text(json.dumps(_frames('t', dict(rainy=2))))
    with pytest.raises(RobustDetError, match='no clear frames'):
        write_bdd100k_splits(str(out), val, str(bad))
    with pytest.raises(RobustDetError, match='labels file not found'):
        write_bdd100k_splits(str(out), val, str(tmp_path / 'nope.json'))
    assert not out.exists()


def _load_tool():
    spec = importlib.util.spec_from_file_location(
        'make_bdd100k_splits', osp.join(REPO, 'tools/make_bdd100k_splits.py'))
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_tool_writes_lists_coco_and_summary(labels, tmp_path, monkeypatch,
                                            capsys):
    out = tmp_path / 'splits'
    paths = labels['paths']
    monkeypatch.setattr(sys, 'argv', [
        'make_bdd100k_splits.py', paths['val'], '--out-dir',
        str(out), '--train-labels', paths['train'], '--seed', '5', '--coco'
    ])
    with pytest.raises(SystemExit) as exc:
        _load_tool().main()
    assert exc.value.code == 0
    assert 'val_rainy: 6 images' in capsys.readouterr().out
    want = make_bdd100k_splits(labels['val'], labels['train'], seed=5)
    for name, names in want['lists'].items():
        assert (out / f'{name}.txt').read_text().splitlines() == names
    summary = json.loads((out / 'splits.json').read_text())
    assert summary['seed'] == 5
    assert summary['sizes'] == want['summary']['sizes']
    assert summary['available'] == want['summary']['available']
    with open(paths['val'], 'rb') as f:
        sha = hashlib.sha256(f.read()).hexdigest()
    assert summary['inputs']['val_labels']['sha256'] == sha
    assert 'train_labels' in summary['inputs']
    written = sorted(os.listdir(out))
    assert written == sorted(summary['files'] + ['splits.json'])
    assert 'train_clear_coco.json' not in written
    # The COCO json of a list is the dataset export of that file list.
    coco = json.loads((out / 'val_rainy_coco.json').read_text())
    again = write_coco_annotations(
        paths['val'], str(tmp_path / 'again.json'),
        file_list=str(out / 'val_rainy.txt'))
    assert coco == json.loads(json.dumps(again))
    assert len(coco['images']) == 6
    assert [a['iscrowd'] for a in coco['annotations']] == [0, 1] * 6
    assert coco['annotations'][0]['bbox'] == [1, 2, 10.5, 19]


def test_cli_one_line_error(labels, tmp_path):
    out = tmp_path / 'out'
    proc = run_tool('tools/make_bdd100k_splits.py', labels['paths']['val'],
                    '--out-dir', out, '--time-size', '1000', cwd=REPO)
    assert proc.returncode == 2
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1, proc.stderr
    assert lines[0].startswith('error: --time-size 1000 is more than the ')
    assert not out.exists()
