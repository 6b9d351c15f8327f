# Copyright (c) robustdet contributors. All rights reserved.
"""The BDD100k weather and time-of-day splits of Michaelis et al. (2019),
section 3.5.

From the val labels: ``val_clear``, ``val_rainy`` and ``val_snowy`` of one
size (by default the smallest of the three: 725 on BDD100k), and
``val_daytime`` and ``val_night`` of one size likewise. From the train
labels, if given: ``train_clear`` and ``train_daytime`` with every frame of
that weather / time of day. Other values (foggy, overcast, partly cloudy,
dawn/dusk, undefined) are in no list.

Sampling is a stable hash of ``(seed, list name, image name)``: the same
seed gives the same lists whatever the order of the labels file, another
seed other lists, and a smaller size a subset of a larger one. Names are
sorted within each list.
"""
import os.path as osp
from typing import Dict, List, Optional, Sequence

from ..datasets.bdd100k import (BDD100K_ATTRIBUTES, build_data_list,
                                data_list_to_coco, frame_attribute,
                                read_bdd100k_labels)
from ..utils.errors import RobustDetError
from ..utils.io import dump_json_atomic, sha256_file, write_text_atomic
from ..utils.seeding import derive_seed

#: Weathers of the equal-size val lists, in report order.
WEATHER_SPLITS = ('clear', 'rainy', 'snowy')
#: Times of day of the equal-size val lists.
TIME_SPLITS = ('daytime', 'night')
#: Training lists: (attribute, value); all frames with that value.
TRAIN_SPLITS = (('weather', 'clear'), ('timeofday', 'daytime'))
#: Name of the summary file.
SUMMARY_FILE = 'splits.json'


def count_values(frames: Sequence[dict], attribute: str) -> Dict[str, int]:
    """How many frames have each value of ``attribute`` (known values
    first, in :data:`BDD100K_ATTRIBUTES` order, zeros included; then any
    other value seen, sorted)."""
    counts = {value: 0 for value in BDD100K_ATTRIBUTES[attribute]}
    extra: Dict[str, int] = {}
    for frame in frames:
        value = frame_attribute(frame, attribute)
        if value in counts:
            counts[value] += 1
        else:
            extra[value] = extra.get(value, 0) + 1
    counts.update(sorted(extra.items()))
    return counts


def names_with(frames: Sequence[dict], attribute: str,
               value: str) -> List[str]:
    """Sorted names of the frames whose ``attribute`` is ``value``."""
    return sorted(f['name'] for f in frames
                  if frame_attribute(f, attribute) == value)


def sample_names(names: Sequence[str], size: int, seed: int,
                 key: str) -> List[str]:
    """``size`` of ``names``, chosen by a stable hash, sorted.

    The frames with the smallest ``derive_seed(seed, key, name)`` are
    taken, so the choice does not depend on the order of ``names`` and a
    smaller ``size`` gives a subset.

    Args:
        names (Sequence[str]): Unique image names.
        size (int): How many to take (at most ``len(names)``).
        seed (int): Sampling seed.
        key (str): What is sampled (e.g. the list name).

    Returns:
        list[str]: The chosen names, sorted.
    """
    if not 0 <= size <= len(names):
        raise ValueError(f'cannot take {size} of {len(names)} names')
    ranked = sorted(names, key=lambda n: (derive_seed(seed, key, n), n))
    return sorted(ranked[:size])


def equal_size_lists(frames: Sequence[dict],
                     attribute: str,
                     values: Sequence[str],
                     size: Optional[int],
                     seed: int,
                     labels_file: str = 'the labels',
                     option: str = '--size') -> Dict[str, List[str]]:
    """One list of ``size`` frames per value of ``attribute``.

    Args:
        frames (Sequence[dict]): BDD100k frames.
        attribute (str): ``'weather'`` or ``'timeofday'``.
        values (Sequence[str]): One list per value.
        size (int, optional): Frames per list; default: the count of the
            rarest value.
        seed (int): Sampling seed.
        labels_file (str): Name of the labels file, for messages.
        option (str): The option that sets ``size``, for messages.

    Returns:
        dict[str, list[str]]: ``'val_<value>'`` -> sorted names.
    """
    pools = {v: names_with(frames, attribute, v) for v in values}
    counts = ', '.join(f'{v}={len(p)}' for v, p in pools.items())
    if size is None:
        size = min(len(p) for p in pools.values())
        if size == 0:
            empty = next(v for v, p in pools.items() if not p)
            raise RobustDetError(
                f'{labels_file} has no {empty} frames, so the {attribute} '
                f'lists would be empty ({counts})')
    elif size < 1:
        raise RobustDetError(f'{option} must be >= 1, got {size}')
    for value, pool in pools.items():
        if size > len(pool):
            raise RobustDetError(
                f'{option} {size} is more than the {len(pool)} {value} '
                f'frames of {labels_file} ({attribute}: {counts})')
    lists = {}
    for value, pool in pools.items():
        name = f'val_{value.replace("/", "_")}'
        lists[name] = sample_names(pool, size, seed, name)
    return lists


def make_bdd100k_splits(val_frames: Sequence[dict],
                        train_frames: Optional[Sequence[dict]] = None,
                        seed: int = 0,
                        weather_size: Optional[int] = None,
                        time_size: Optional[int] = None,
                        val_labels: str = 'the val labels',
                        train_labels: str = 'the train labels') -> dict:
    """The paper's split lists, in memory.

    Args:
        val_frames (Sequence[dict]): Frames of ``det_val.json``.
        train_frames (Sequence[dict], optional): Frames of
            ``det_train.json``, for the training lists.
        seed (int): Sampling seed.
        weather_size (int, optional): Size of each weather list; default:
            the smallest of clear, rainy and snowy.
        time_size (int, optional): Size of each time-of-day list; default:
            the smaller of daytime and night.
        val_labels (str): Name of the val labels, for messages.
        train_labels (str): Name of the train labels, for messages.

    Returns:
        dict: ``lists`` (list name -> sorted names) and ``summary``
        (``seed``, ``sizes``, ``available``: per attribute value counts of
        each labels file).
    """
    lists = {}
    lists.update(
        equal_size_lists(val_frames, 'weather', WEATHER_SPLITS, weather_size,
                         seed, val_labels, '--weather-size'))
    lists.update(
        equal_size_lists(val_frames, 'timeofday', TIME_SPLITS, time_size,
                         seed, val_labels, '--time-size'))
    available = dict(
        val={a: count_values(val_frames, a)
             for a in ('weather', 'timeofday')})
    if train_frames is not None:
        available['train'] = {
            a: count_values(train_frames, a)
            for a in ('weather', 'timeofday')
        }
        for attribute, value in TRAIN_SPLITS:
            names = names_with(train_frames, attribute, value)
            if not names:
                raise RobustDetError(
                    f'{train_labels} has no {value} frames for '
                    f'train_{value}')
            lists[f'train_{value}'] = names
    summary = dict(
        seed=seed,
        sizes=dict(
            weather=len(lists[f'val_{WEATHER_SPLITS[0]}']),
            timeofday=len(lists[f'val_{TIME_SPLITS[0]}'])),
        lists={name: len(names)
               for name, names in lists.items()},
        available=available)
    return dict(lists=lists, summary=summary)


def write_bdd100k_splits(out_dir: str,
                         val_labels: str,
                         train_labels: Optional[str] = None,
                         seed: int = 0,
                         weather_size: Optional[int] = None,
                         time_size: Optional[int] = None,
                         coco: bool = False) -> dict:
    """Make the split lists and write them to ``out_dir``.

    Writes ``<list>.txt`` (one image name a line) for every list,
    ``val_<value>_coco.json`` (the COCO json of each val list for mmdet's
    ``CocoMetric``, see
    :func:`robustdet.datasets.bdd100k.write_coco_annotations`) if
    ``coco``, and ``splits.json`` (seed, sizes, counts available per value,
    SHA-256 of the inputs). Everything is computed before the first file is
    written, and each file is written atomically: a user error writes
    nothing.

    Args:
        out_dir (str): Output directory (created).
        val_labels (str): ``det_val.json``.
        train_labels (str, optional): ``det_train.json``.
        seed (int): Sampling seed.
        weather_size (int, optional): Size of each weather list.
        time_size (int, optional): Size of each time-of-day list.
        coco (bool): Also write the COCO json of each val list.

    Returns:
        dict: The summary written to ``splits.json``.
    """
    if osp.exists(out_dir) and not osp.isdir(out_dir):
        raise RobustDetError(f'--out-dir {out_dir} is not a directory')
    val_frames = read_bdd100k_labels(val_labels)
    train_frames = (read_bdd100k_labels(train_labels)
                    if train_labels is not None else None)
    made = make_bdd100k_splits(val_frames, train_frames, seed, weather_size,
                               time_size, val_labels, train_labels or '')
    files = {f'{name}.txt': ''.join(f'{n}\n' for n in names)
             for name, names in made['lists'].items()}
    cocos = {}
    if coco:
        for name, names in made['lists'].items():
            if name.startswith('val_'):
                data_list = build_data_list(
                    val_frames,
                    names,
                    labels_file=val_labels,
                    file_list=f'{name}.txt')
                cocos[f'{name}_coco.json'] = data_list_to_coco(data_list)
    summary = dict(made['summary'])
    summary['inputs'] = dict(
        val_labels=dict(path=val_labels, sha256=sha256_file(val_labels)))
    if train_labels is not None:
        summary['inputs']['train_labels'] = dict(
            path=train_labels, sha256=sha256_file(train_labels))
    summary['files'] = sorted(files) + sorted(cocos)
    for file_name, text in files.items():
        write_text_atomic(text, osp.join(out_dir, file_name))
    for file_name, obj in cocos.items():
        dump_json_atomic(obj, osp.join(out_dir, file_name), indent=None)
    dump_json_atomic(summary, osp.join(out_dir, SUMMARY_FILE))
    return summary
