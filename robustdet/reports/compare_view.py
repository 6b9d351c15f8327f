# Copyright (c) robustdet contributors. All rights reserved.
"""The view model of runs beside the published results: what
``compare.md`` and the page's "Beside the published results" show of a
comparison (:func:`robustdet.evaluation.functional.comparison.
comparison`), decided once.

The comparison itself (``compare.json``) holds the numbers; this module
writes them (:mod:`.formatting`), picks the colours' references, the
footnotes, notes and citations, and the runs' training warnings. The
templates ``templates/compare.md.j2`` and ``compare.html.j2`` lay it
out.
"""
from typing import Any, Dict, List

from ..baselines import CITATIONS
from ..corruptions import CORRUPTIONS_BY_NAME, SEVERITIES
from ..evaluation.functional.comparison import CE_COUNTS, CE_KEYS
from .formatting import FAMILY_TITLES, one_decimal, signed, with_count
from .robustness_view import cell, label, row, table

# What a run's rPC_class_mean is called in the tables (mmdet's
# robustness_eval averages per-class ratios for PASCAL VOC).
CLASS_MEAN_COLUMN = 'rPC (class mean)'


def shows_class_mean(data: Dict[str, Any]) -> bool:
    """Whether the tables of a comparison show ``rPC (class mean)``: for
    VOC, when a run has its class-mean rPC."""
    return data['dataset'] == 'voc' and any(
        r.get('rPC_class_mean') is not None for r in data['rows'])


def _citation(key: str) -> Dict[str, Any]:
    cite = CITATIONS[key]
    authors = cite['authors'].split(',')
    who = (f'{authors[0].split()[-1]} et al.'
           if len(authors) > 1 else cite['authors'])
    return dict(cite, key=key, who=who)


def _main_rows(data: Dict[str, Any]) -> List[Dict[str, Any]]:
    """A row per comparison row: its label and marks, and its cells
    (P, mPC coloured against P, rPC against 100, the class mean, the
    differences), the source last."""
    class_mean = shows_class_mean(data)
    rows, notes = [], 0
    for r in data['rows']:
        dagger = ''
        if r['kind'] == 'published' and r.get('note'):
            notes += 1
            dagger = '†' * notes
        cells = [
            cell(one_decimal(r['P'])),
            cell(one_decimal(r['mPC']), r['mPC'], r['P']),
            cell(one_decimal(r['rPC']), r['rPC'], 100),
        ]
        if class_mean:
            cells.append(cell(one_decimal(r.get('rPC_class_mean'))))
        cells += [cell(signed(r[k])) for k in ('dP', 'dmPC', 'drPC')]
        rows.append(dict(
            label=r['label'], dagger=dagger, run=r['kind'] == 'run',
            baseline=r['baseline'], incomplete=bool(r.get('incomplete')),
            cells=cells, source=r['source']))
    return rows


def _ce_families(data: Dict[str, Any]) -> List[str]:
    """The families some row of the comparison has errors of."""
    found = {f for r in data['rows'] for f in r.get('ce', {})}
    return [f for f in FAMILY_TITLES if f in found]


def _ce_table(data: Dict[str, Any]) -> Dict[str, Any]:
    """Every row's corruption errors per family, in %."""
    families = _ce_families(data)
    rows = []
    for r in data['rows']:
        ce = r.get('ce') or {}
        cells = [label(r['label'])]
        for f in families:
            errors = ce.get(f) or {}
            cells += [
                cell(with_count(one_decimal(errors.get(k)),
                                errors.get(CE_COUNTS[k])
                                if k in CE_COUNTS else None))
                for k in CE_KEYS
            ]
        rows.append(row(cells))
    return table(['model'] + [
        f'{FAMILY_TITLES[f]}: {k}' for f in families
        for k in ('mCE', 'rel. mCE', 'CE pooled', 'rel. CE pooled')
    ], rows)


def _per_corruption(data: Dict[str, Any]) -> Dict[str, Any]:
    """Each run's mPC per corruption, ``*`` where severities are missing.
    """
    runs = [r for r in data['rows'] if r['kind'] == 'run']
    rows, partial = [], False
    for name in data['corruptions']:
        cells = [label(name), label(CORRUPTIONS_BY_NAME[name].group)]
        for r in runs:
            value = r['per_corruption'].get(name)
            text = one_decimal(value)
            if (value is not None and r['per_corruption_severities'].get(
                    name, 0) < len(SEVERITIES)):
                text += '*'
                partial = True
            cells.append(cell(text))
        rows.append(row(cells))
    return dict(partial=partial, table=table(
        ['corruption', 'group'] + [r['label'] for r in runs], rows))


def compare_view(data: Dict[str, Any]) -> Dict[str, Any]:
    """The view model of a comparison.

    Args:
        data (dict): A comparison (``compare.json``).

    Returns:
        dict: ``dataset``, ``task``, ``metric``, ``baseline`` and
        ``baseline_label``; ``columns`` and ``rows`` of the main table
        (each row: ``label``, ``dagger``, ``run``, ``baseline``,
        ``incomplete``, ``cells``, ``source``); ``warnings`` (runs trained
        on corruptions), ``incomplete`` (footnotes), ``notes`` (the
        published rows' notes), ``class_mean_column``, ``citations``;
        ``ce`` (None without a CE baseline) and ``per_corruption``.
    """
    class_mean = shows_class_mean(data)
    rows = _main_rows(data)
    notes = [dict(dagger=v['dagger'], label=v['label'], note=r['note'])
             for v, r in zip(rows, data['rows']) if v['dagger']]
    cited = {r['source'] for r in data['rows'] if r['kind'] == 'published'}
    cited.update(key for key in CITATIONS for n in notes
                 if f"'{key}'" in n['note'])
    base = data.get('ce_baseline')
    return dict(
        dataset=data['dataset'],
        task=data['task'],
        metric=data['metric'],
        baseline=data['baseline'],
        baseline_label=data['baseline_label'],
        columns=['model', 'P', 'mPC', 'rPC'] +
        ([CLASS_MEAN_COLUMN] if class_mean else []) +
        ['ΔP', 'ΔmPC', 'ΔrPC', 'source'],
        rows=rows,
        warnings=[dict(name=r['label'], warning=r['warning'])
                  for r in data['rows'] if r.get('warning')],
        incomplete=[dict(label=r['label'], done=r['benchmark_cells'][0],
                         total=r['benchmark_cells'][1],
                         missing=r['missing_compact'])
                    for r in data['rows'] if r.get('incomplete')],
        notes=notes,
        class_mean_column=CLASS_MEAN_COLUMN if class_mean else None,
        citations=[_citation(k) for k in sorted(cited & set(CITATIONS))],
        ce=None if not base else dict(
            kind=base['kind'], name=base['name'],
            source=base.get('source'), table=_ce_table(data)),
        per_corruption=_per_corruption(data),
        records=comparison_records(data))


def comparison_records(data: Dict[str, Any]) -> Dict[str, Any]:
    """The first table of a comparison in raw values (``compare.csv``:
    ``columns`` and ``rows``), one row per run or published row: values
    in points, rPC in %, None where undefined; then each run's
    ``mPC_<corruption>`` (None for published rows), its corruption errors
    per family and, last, its training warning (``warning``: empty where
    there is none)."""
    numbers = ['P', 'mPC', 'rPC'] + (
        ['rPC_class_mean'] if shows_class_mean(data) else []) + [
            'dP', 'dmPC', 'drPC'
        ]
    families = _ce_families(data)
    columns = (['name', 'kind', 'label', 'source', *numbers, 'baseline',
                'incomplete', 'missing'] +
               [f'mPC_{c}' for c in data['corruptions']] +
               [f'{k}_{f}' for f in families for k in CE_KEYS] +
               [f'{k}_{f}' for f in families for k in CE_COUNTS.values()] +
               ['warning'])
    rows = []
    for run in data['rows']:
        per = run.get('per_corruption', {})
        ce = {f: (run.get('ce') or {}).get(f) or {} for f in families}
        rows.append(
            [run['name'], run['kind'], run['label'], run['source']] +
            [run.get(k) for k in numbers] +
            [int(run['baseline']), int(bool(run.get('incomplete'))),
             run.get('missing_compact', '')] +
            [per.get(c) for c in data['corruptions']] +
            [ce[f].get(k) for f in families for k in CE_KEYS] +
            [ce[f].get(k) for f in families for k in CE_COUNTS.values()] +
            [run.get('warning', '')])
    return dict(columns=columns, rows=rows)
