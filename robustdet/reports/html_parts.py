# Copyright (c) robustdet contributors. All rights reserved.
"""What the HTML report (:mod:`robustdet.reports.html`) needs beside the
view models: the provenance of a run as ``(term, value)`` items, and the
page around the sections (``templates/page.html.j2``).

The page references nothing outside itself: every picture is inlined as
a ``data:`` URI (:func:`robustdet.visualization.strips.data_uri`), the
style sheet is inline, there is no script, and a
Content-Security-Policy ``<meta>`` forbids any other source should one
slip in.
"""
import json
import os.path as osp
from typing import Any, Dict, List, Sequence, Tuple

from ..version import __version__
from .formatting import DASH
from .templating import TEMPLATES, render

# What the page may load: inline styles and data: pictures, nothing else.
CSP = ("default-src 'none'; img-src data:; style-src 'unsafe-inline'; "
       "base-uri 'none'; form-action 'none'")
# The settings a provenance list shows when the results hold them:
# (title, key, kinds of run it is shown for).
SETTINGS = (('seed', 'seed', None), ('backend', 'backend', None),
            ('channel order', 'channel_order', None),
            ('corruption device', 'corruption_device', None),
            ('region', 'region', 'robustness'),
            ('depth', 'depth', 'robustness'),
            ('pixels that depend on the CPU', 'cpu_dependent', 'robustness'),
            ('ground truth', 'ground_truth', None), ('shard', 'shard', None),
            ('video clips', 'video_clips', 'robustness'),
            ('split dir', 'split_dir', None),
            ('COCO-O root', 'coco_o_root', None))


def item(term: str, code: Any = None, text: str = '') -> Dict[str, Any]:
    """A provenance entry: ``code`` (shown as code, None for none), then
    ``text``."""
    return dict(term=term, code=None if code is None else str(code),
                text=text)


def value_item(term: str, value: Any) -> Dict[str, Any]:
    """A results entry as a provenance item: '–' for None, JSON for
    lists and objects, the value otherwise, as code."""
    if value is None:
        return item(term, text=DASH)
    if isinstance(value, (dict, list)):
        value = json.dumps(value, sort_keys=True)
    return item(term, value)


def _pmk_items(r: Dict[str, Any]) -> List[Dict[str, Any]]:
    """A pm-k report's inputs and settings."""
    cls = r['classification']
    items = [value_item(f'input: {k}', v)
             for k, v in (r.get('sources') or {}).items() if v is not None]
    items += [value_item('largest k', r.get('k')),
              value_item('IoU threshold', r.get('iou_thr')),
              value_item('ImageNet VID small-box IoU', r.get('vid_iou')),
              item('headline mAP', text='class-agnostic'
                   if r.get('class_agnostic') else 'per class'),
              item('classification', text=f'judged per {cls.get("judge")} '
                   f'with {cls.get("labels")} labels'),
              item('skipped anchors',
                   text=str(len(r.get('skipped_anchors') or [])))]
    return items + [value_item(key, r[key])
                    for key in ('format', 'robustdet_version', 'config',
                                'checkpoint') if key in r]


def provenance(kind: str, path: str,
               r: Dict[str, Any]) -> List[Dict[str, Any]]:
    """Where a run's numbers come from: its file, config, checkpoint and
    their hashes, the settings that decide the numbers, where it was
    imported from, the robustdet version (a pm-k report: its inputs and
    settings).

    Args:
        kind (str): ``'robustness'``, ``'shift'`` or ``'pmk'``.
        path (str): The results file.
        r (dict): Its results.

    Returns:
        list[dict]: The entries (:func:`item`), in the page's order.
    """
    items = [item('results file', path)]
    if kind == 'pmk':
        return items + _pmk_items(r)
    if r.get('name'):
        items.append(item('name', text=str(r['name'])))
    imported = r.get('imported')
    if imported:
        items.append(item('imported', text=f'dataset '
                          f'{imported.get("dataset")}, task '
                          f'{imported.get("task") or "all"}'))
        items += [item('imported file', f.get('path'),
                       f' (layout {f.get("layout")}, sha256 '
                       f'{f.get("sha256")})')
                  for f in imported.get('files', [])]
    if kind == 'shift':
        items += [item('benchmark', text=str(r.get('benchmark'))),
                  item('reference split', text=str(r.get('reference'))),
                  item('layout',
                       text=f'Michaelis et al. 2019, {r.get("table")}')]
    items += [value_item('config', r.get('config')),
              value_item('config fingerprint (sha256)',
                         r.get('config_sha256')),
              value_item('checkpoint', r.get('checkpoint')),
              value_item('checkpoint sha256', r.get('checkpoint_sha256'))]
    # Image-corruption settings are shown for robustness runs only, the
    # CPU-dependent corruptions only when there are some.
    items += [value_item(title, r[key]) for title, key, only in SETTINGS
              if key in r and only in (None, kind)
              and (key != 'cpu_dependent' or r[key])]
    if r.get('ce_baseline'):
        base = r['ce_baseline']
        items.append(item('CE baseline',
                          text=f'{base.get("kind")} {base.get("name")}'))
    seconds = r.get('seconds') or {}
    if seconds:
        items.append(item('scoring time', text=(
            f'{sum(seconds.values()):.0f} s over {len(seconds)} '
            f'{"splits" if kind == "shift" else "cells"}')))
    return items + [value_item('robustdet version',
                               r.get('robustdet_version'))]


def page(title: str, toc: Sequence[Tuple[str, str]],
         sections: Sequence[Dict[str, Any]]) -> str:
    """The whole document (``templates/page.html.j2``, the style sheet
    ``templates/page.css`` inlined).

    Args:
        title (str): Title and first heading.
        toc (Sequence[tuple[str, str]]): ``(anchor, title)`` of the
            contents (shown from two entries).
        sections (Sequence[dict]): ``anchor``, ``title``, ``body`` (HTML
            as :class:`markupsafe.Markup`) and ``section`` (whether the
            body is a run's ``<section>``).

    Returns:
        str: The HTML document.
    """
    with open(osp.join(TEMPLATES, 'page.css'), encoding='utf-8') as f:
        css = f.read()
    return render('page.html.j2', title=title, toc=toc, sections=sections,
                  css=css, csp=CSP, version=__version__)
