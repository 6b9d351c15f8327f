# Copyright (c) robustdet contributors. All rights reserved.
"""How every report writes a number: one definition per kind of value,
shared by the Markdown, CSV and HTML reports (a change of how mPC or a
relative mCE is written is made here, once), and the names and words
they share."""
import csv
import io
import re
from typing import Any, Dict, Optional

# What a report writes where a value is missing or undefined.
DASH = '–'
# The corruption-error families' titles (the results' ``corruption_errors``
# entry, :func:`robustdet.apis.results.corruption_errors`), in table order.
FAMILY_TITLES = dict(
    benchmark='the 15 (mCE)',
    holdout='hold-out',
    cbar='C-bar (mCE-bar)',
    **{'3dcc': '3DCC'})
# The sentence under every table of mean CEs (``count_words`` in every
# template).
COUNT_WORDS = ('(n): the corruptions a mean covers; relative mCE leaves '
               'out the flagged ones.')


def points(fraction: Optional[float]) -> str:
    """A metric in [0, 1] as points with one decimal, ``'40.4'``; the
    dash for None and for COCO's -1 (undefined)."""
    if fraction is None or fraction < 0:
        return DASH
    return f'{100 * fraction:.1f}'


def percent(fraction: Optional[float]) -> str:
    """A ratio as a percentage with one decimal (rPC, a CE: 1 is 100.0,
    negative values kept); the dash for None."""
    return DASH if fraction is None else f'{100 * fraction:.1f}'


def one_decimal(value: Optional[float]) -> str:
    """A value already in points or % with one decimal; the dash for
    None."""
    return DASH if value is None else f'{value:.1f}'


def signed(value: Optional[float]) -> str:
    """A difference with its sign and one decimal, ``'+1.2'``, ``'0.0'``
    when it rounds to zero; the dash for None."""
    if value is None:
        return DASH
    value = round(value, 1)
    return '0.0' if value == 0 else f'{value:+.1f}'


def gamma(value: Optional[float]) -> str:
    """γa or γr with three decimals; the dash for None."""
    return DASH if value is None else f'{value:.3f}'


def fraction(value: Optional[float], digits: int = 4) -> str:
    """A value kept as a fraction (pm-k's mAP and accuracy) with
    ``digits`` decimals; the dash for None."""
    return DASH if value is None else f'{value:.{digits}f}'


def with_count(text: str, count: Optional[int]) -> str:
    """A mean's text (already written) with the number of values it
    averages, ``'84.2 (15)'``; the text alone without a count or for the
    dash."""
    return text if count is None or text == DASH else f'{text} ({count})'


def slug(metric: str) -> str:
    """A metric name as a file-name part: ``coco/bbox_mAP`` is
    ``coco_bbox_mAP`` (runs of other characters than letters and digits
    as one underscore, none at either end)."""
    return re.sub(r'[^A-Za-z0-9]+', '_', metric).strip('_')


def csv_text(record: Dict[str, Any]) -> str:
    """A view model's record as CSV text: its ``columns``, then its
    ``rows`` (values as Python writes them, None as an empty field).

    Args:
        record (dict): ``columns`` and ``rows`` (lists of plain values).

    Returns:
        str: The CSV text, ``\\n`` line ends.
    """
    out = io.StringIO()
    writer = csv.writer(out, lineterminator='\n')
    writer.writerow(record['columns'])
    writer.writerows(record['rows'])
    return out.getvalue()
