# Copyright (c) robustdet contributors. All rights reserved.
"""P, mPC, rPC and γa / γr of the video (clip) corruptions of a grid, pure
Python.

Clip corruptions (:data:`robustdet.video.table.CLIP_CORRUPTIONS`) share
the grid of ``robustness.json`` with the image corruptions; their names
never collide. Here only the clip cells count:

- ``mPC_video`` is the mean over every present clip cell (severities 1-5)
  of the performance under corruption, ``rPC_video = mPC_video / P`` (a
  ratio of means, as for images);
- ``mPC_<family>`` the same mean per family
  (:data:`robustdet.video.types.FAMILIES`);
- γa and γr (Schiappa et al. 2023, see :mod:`.gamma`) per family, per kind
  (``'spatial'``: :data:`~robustdet.video.types.SPATIAL_FAMILIES`,
  ``'temporal'``: :data:`~robustdet.video.types.TEMPORAL_FAMILIES`) and
  over all clip cells.

Undefined values (< 0) and missing cells are left out; a value that cannot
be computed is None.
"""
from typing import Dict, Mapping

from ...video.table import CLIP_CORRUPTIONS
from ...video.types import (FAMILIES, SEVERITIES, SPATIAL_FAMILIES,
                            TEMPORAL_FAMILIES)
from .gamma import gamma_scores
from .robustness import (collect_values, defined_value, mean_or_none,
                         metric_keys)

Cells = Mapping[str, Mapping[str, Mapping[str, float]]]

CLIP_NAMES = tuple(c.name for c in CLIP_CORRUPTIONS)
FAMILY_OF = {c.name: c.family for c in CLIP_CORRUPTIONS}
# 'spatial' or 'temporal' per family.
KIND_OF_FAMILY = dict(
    **{f: 'spatial'
       for f in SPATIAL_FAMILIES},
    **{f: 'temporal'
       for f in TEMPORAL_FAMILIES})
KINDS = ('spatial', 'temporal')
# Keys of the γ dicts of a video summary row.
GAMMA_GROUPS = tuple(dict.fromkeys(FAMILIES + KINDS + ('all', )))


def video_cells(cells: Cells) -> Dict[str, Dict[str, Mapping[str, float]]]:
    """The clip corruption cells of a grid (severities 1-5 only), in table
    order.

    Args:
        cells (Mapping): ``{corruption: {'1': {metric: value}, ...}}``,
            image and clip corruptions mixed.

    Returns:
        dict: The same layout, holding only clip corruptions with at least
        one cell.
    """
    out = {}
    for name in CLIP_NAMES:
        per_sev = {
            str(s): cells[name][str(s)]
            for s in SEVERITIES if str(s) in cells.get(name, {})
        }
        if per_sev:
            out[name] = per_sev
    return out


def video_coverage(cells: Cells) -> Dict[str, object]:
    """Which cells of the video grid (every clip corruption × severities
    1-5) are present.

    Args:
        cells (Mapping): ``{corruption: {'1': {metric: value}, ...}}``.

    Returns:
        dict: ``video`` as ``[present, expected]``, ``complete`` (all clip
        cells present) and ``missing`` (the absent clip cells as
        ``'name/severity'``, in table order).
    """
    present, missing = 0, []
    for name in CLIP_NAMES:
        for sev in SEVERITIES:
            if str(sev) in cells.get(name, {}):
                present += 1
            else:
                missing.append(f'{name}/{sev}')
    expected = len(CLIP_NAMES) * len(SEVERITIES)
    return dict(
        video=[present, expected],
        complete=present == expected,
        missing=missing)


def video_summary(clean: Mapping[str, float],
                  cells: Cells) -> Dict[str, Dict[str, object]]:
    """P, mPC, rPC, per-family mPC and γa / γr of the clip corruptions,
    for every metric.

    Args:
        clean (Mapping): Clean metrics ``{metric: value}`` (0-1).
        cells (Mapping): ``{corruption: {'1': {metric: value}, ...}}``,
            image and clip corruptions mixed (image ones are ignored).

    Returns:
        dict: ``{}`` when no clip cell is present, else ``{metric: {'P',
        'mPC_video', 'rPC_video', 'mPC_codec', ..., 'mPC_camera',
        'gamma_a', 'gamma_r'}}`` where ``gamma_a`` and ``gamma_r`` are
        ``{family: value, ..., 'spatial': value, 'temporal': value,
        'all': value}`` (every family of
        :data:`~robustdet.video.types.FAMILIES`, None where it has no
        defined cell). rPC_video and γr are None when P is 0 or
        undefined.
    """
    video = video_cells(cells)
    if not video:
        return {}
    by_family = {name: FAMILY_OF[name] for name in video}
    by_kind = {
        name: KIND_OF_FAMILY[family]
        for name, family in by_family.items()
    }
    summary = {}
    for metric in metric_keys(clean, video):
        p = defined_value(clean.get(metric))
        mpc = mean_or_none(collect_values(video, video, metric))
        row = dict(
            P=p,
            mPC_video=mpc,
            rPC_video=(mpc / p if p and mpc is not None else None))
        for family in FAMILIES:
            names = [n for n in video if by_family[n] == family]
            row[f'mPC_{family}'] = mean_or_none(
                collect_values(video, names, metric))
        families = gamma_scores(clean, video, by_family, metric)
        kinds = gamma_scores(clean, video, by_kind, metric)
        for key in ('gamma_a', 'gamma_r'):
            # A kind's entry wins over a family of the same name ('temporal'
            # is both, with the same cells while TEMPORAL_FAMILIES is it).
            merged = dict(families[key], **kinds[key])
            row[key] = {g: merged.get(g) for g in GAMMA_GROUPS}
        summary[metric] = row
    return summary
