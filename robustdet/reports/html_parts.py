# Copyright (c) robustdet contributors. All rights reserved.
"""Building blocks of the HTML report (:mod:`robustdet.reports.html`)
that are not templates: escaped text, the colour of a value, pictures as
``data:`` URIs, the provenance list and the page around the sections
(``templates/page.html.j2``).

The page references nothing outside itself: every picture is inlined as
a ``data:`` URI, the style sheet is inline, there is no script, and a
Content-Security-Policy ``<meta>`` forbids any other source should one
slip in.
"""
import base64
import html
import io
import json
import os.path as osp
from typing import Any, Dict, Iterable, List, Optional, Tuple

from markupsafe import Markup
from PIL import Image, UnidentifiedImageError

from ..version import __version__
from .templating import TEMPLATES, render

# Widest strip picture embedded (pixels); wider ones are downscaled.
STRIP_WIDTH = 800
STRIP_QUALITY = 80
# What the page may load: inline styles and data: pictures, nothing else.
CSP = ("default-src 'none'; img-src data:; style-src 'unsafe-inline'; "
       "base-uri 'none'; form-action 'none'")


def esc(value: Any) -> str:
    """``value`` as escaped HTML text (quotes too)."""
    return html.escape(str(value), quote=True)


def code(value: Any) -> str:
    """``value`` as escaped ``<code>``."""
    return f'<code>{esc(value)}</code>'


def para(text: str, cls: Optional[str] = None) -> str:
    """A paragraph of HTML (already escaped)."""
    attr = f' class="{cls}"' if cls else ''
    return f'<p{attr}>{text}</p>\n'


def heading(level: int, text: str, anchor: Optional[str] = None) -> str:
    """A heading of escaped ``text``, with an ``id`` if given."""
    attr = f' id="{esc(anchor)}"' if anchor else ''
    return f'<h{level}{attr}>{esc(text)}</h{level}>\n'


def data_uri(data: bytes, mime: str) -> str:
    """``data`` as a base64 ``data:`` URI."""
    return f'data:{mime};base64,' + base64.b64encode(data).decode('ascii')


def picture(data: bytes, alt: str, mime: str = 'image/png',
            cls: str = 'plot') -> str:
    """An ``<img>`` with the picture inlined."""
    return (f'<img class="{esc(cls)}" alt="{esc(alt)}" '
            f'src="{data_uri(data, mime)}">\n')


def jpeg_thumbnail(path: str,
                   max_width: int = STRIP_WIDTH,
                   quality: int = STRIP_QUALITY) -> Optional[bytes]:
    """A picture file as JPEG bytes at most ``max_width`` pixels wide.

    Args:
        path (str): The picture.
        max_width (int): Widest result; wider pictures are downscaled
            (aspect kept).
        quality (int): JPEG quality.

    Returns:
        bytes | None: The JPEG; None if the file is not a readable
        picture.
    """
    try:
        with Image.open(path) as img:
            img.load()
            img = img.convert('RGB')
    except (OSError, UnidentifiedImageError, ValueError):
        return None
    if img.width > max_width:
        height = max(1, round(img.height * max_width / img.width))
        img = img.resize((max_width, height), Image.LANCZOS)
    buf = io.BytesIO()
    img.save(buf, format='JPEG', quality=quality, optimize=True)
    return buf.getvalue()


def definitions(items: Iterable[Tuple[str, str]]) -> str:
    """A definition list of ``(term, HTML value)`` pairs; the terms are
    escaped here, the values are HTML already."""
    out = ['<dl class="prov">']
    for term, value in items:
        out.append(f'<dt>{esc(term)}</dt><dd>{value}</dd>')
    out.append('</dl>\n')
    return '\n'.join(out)


def contents(entries: List[Tuple[str, str]]) -> str:
    """The table of contents: ``(anchor, title)`` pairs."""
    if len(entries) < 2:
        return ''
    items = ''.join(f'<li><a href="#{esc(a)}">{esc(t)}</a></li>'
                    for a, t in entries)
    return f'<nav><ul>{items}</ul></nav>\n'


def page(title: str, body: str) -> str:
    """The whole document around ``body`` (``templates/page.html.j2``,
    the style sheet ``templates/page.css`` inlined).

    Args:
        title (str): Title and first heading (escaped here).
        body (str): The sections (HTML).

    Returns:
        str: The HTML document.
    """
    with open(osp.join(TEMPLATES, 'page.css'), encoding='utf-8') as f:
        css = f.read()
    return render('page.html.j2', title=title, body=Markup(body),
                  css=Markup(css), csp=CSP, version=__version__)


def json_value(value: Any) -> str:
    """An entry of the results as HTML: '–' for None, code otherwise."""
    if value is None:
        return '–'
    if isinstance(value, (dict, list)):
        return code(json.dumps(value, sort_keys=True))
    return code(value)


def provenance(kind: str, path: str, r: Dict[str, Any]) -> str:
    """Where a robustness or shift run's numbers come from: its file,
    config, checkpoint and their hashes, the settings that decide the
    numbers, where it was imported from, the robustdet version.

    Args:
        kind (str): ``'robustness'`` or ``'shift'``.
        path (str): The results file.
        r (dict): Its results.

    Returns:
        str: The "Provenance" heading and list.
    """
    items = [('results file', code(path))]
    if r.get('name'):
        items.append(('name', esc(r['name'])))
    imported = r.get('imported')
    if imported:
        items.append(('imported', esc(
            f'dataset {imported.get("dataset")}, task '
            f'{imported.get("task") or "all"}')))
        for source in imported.get('files', []):
            items.append(('imported file', code(source.get('path')) + esc(
                f' (layout {source.get("layout")}, sha256 '
                f'{source.get("sha256")})')))
    if kind == 'shift':
        items += [('benchmark', esc(r.get('benchmark'))),
                  ('reference split', esc(r.get('reference'))),
                  ('layout', esc(f'Michaelis et al. 2019, {r.get("table")}'))]
    items += [('config', json_value(r.get('config'))),
              ('config fingerprint (sha256)',
               json_value(r.get('config_sha256'))),
              ('checkpoint', json_value(r.get('checkpoint'))),
              ('checkpoint sha256', json_value(r.get('checkpoint_sha256')))]
    keys = (('seed', 'seed'), ('backend', 'backend'),
            ('channel order', 'channel_order'),
            ('corruption device', 'corruption_device'),
            ('region', 'region'), ('depth', 'depth'),
            ('pixels that depend on the CPU', 'cpu_dependent'),
            ('ground truth', 'ground_truth'), ('shard', 'shard'),
            ('video clips', 'video_clips'), ('split dir', 'split_dir'),
            ('COCO-O root', 'coco_o_root'))
    # Image-corruption settings: shown for robustness runs only, and the
    # CPU-dependent corruptions only when there are some.
    only_robustness = ('region', 'depth', 'video_clips', 'cpu_dependent')
    items += [(title, json_value(r[key])) for title, key in keys
              if key in r and (key not in only_robustness
                               or kind == 'robustness')
              and (key != 'cpu_dependent' or r[key])]
    if r.get('ce_baseline'):
        base = r['ce_baseline']
        items.append(('CE baseline', esc(
            f'{base.get("kind")} {base.get("name")}')))
    seconds = r.get('seconds') or {}
    if seconds:
        items.append(('scoring time', esc(
            f'{sum(seconds.values()):.0f} s over {len(seconds)} '
            f'{"splits" if kind == "shift" else "cells"}')))
    items.append(('robustdet version', json_value(
        r.get('robustdet_version'))))
    return heading(3, 'Provenance') + definitions(items)
