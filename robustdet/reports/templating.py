# Copyright (c) robustdet contributors. All rights reserved.
"""The Jinja2 environments the reports render with.

Templates live in ``reports/templates/``: ``*.md.j2`` and ``*.txt.j2``
render Markdown and plain text (nothing escaped), ``*.html.j2`` HTML
with autoescape on. HTML escapes
as :func:`html.escape` (quotes included), the page's escaping before the
templates, so that ``'`` stays ``&#x27;``. Undefined names raise, so a
template cannot print an entry the view model does not have.
"""
import functools
import html
import os.path as osp
from typing import Any

import jinja2
from markupsafe import Markup

from .formatting import COUNT_WORDS

TEMPLATES = osp.join(osp.dirname(osp.abspath(__file__)), 'templates')
# The table colours: a cell's value relative to what it is compared
# with, from red (0) through yellow to green (1 or more).
COLOUR_SATURATION = 70
COLOUR_LIGHTNESS = 80


def hsl(fraction: float) -> str:
    """The CSS background of a cell whose value is ``fraction`` (in
    [0, 1]) of what it is compared with, ``'hsl(96, 70%, 80%)'``."""
    return (f'hsl({round(120 * fraction)}, {COLOUR_SATURATION}%, '
            f'{COLOUR_LIGHTNESS}%)')


def _escaped(value: Any) -> Markup:
    """What ``{{ value }}`` writes into HTML: ``html.escape``'s text."""
    if isinstance(value, Markup):
        return value
    return Markup(html.escape(str(value), quote=True))


@functools.lru_cache(maxsize=None)
def environment(kind: str) -> jinja2.Environment:
    """The environment of ``'md'`` or ``'html'`` templates.

    Args:
        kind (str): ``'md'`` or ``'html'``.

    Returns:
        jinja2.Environment: Block tags take their line with them
        (``trim_blocks``, ``lstrip_blocks``); a template's last newline
        is kept; ``count_words`` is :data:`~.formatting.COUNT_WORDS`.
    """
    env = jinja2.Environment(
        loader=jinja2.FileSystemLoader(TEMPLATES),
        autoescape=kind == 'html',
        finalize=_escaped if kind == 'html' else None,
        undefined=jinja2.StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
        keep_trailing_newline=True)
    env.filters['hsl'] = hsl
    env.globals['count_words'] = COUNT_WORDS
    return env


def render(template: str, **context: Any) -> str:
    """Render ``templates/<template>`` with ``context``.

    Args:
        template (str): Its file name; ``.html.j2`` ones autoescape.
        **context: Its variables.

    Returns:
        str: The text.
    """
    kind = 'html' if template.endswith('.html.j2') else 'md'
    return environment(kind).get_template(template).render(**context)
