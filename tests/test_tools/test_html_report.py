# Copyright (c) robustdet contributors. All rights reserved.
"""tools/robustness_report.py --html: one self-contained page of
generated robustness, shift and pm-k results, its one-line errors on
files that are not robustdet results, and the page in headless Chromium
(no network request, no console error, not blank, P in the DOM)."""
import base64
import fcntl
import io
import json
import os
import re
import select
import shutil
import subprocess
import sys
import time

import numpy as np
import pytest
from PIL import Image

from robustdet.apis import results as results_api
from robustdet.apis.ce_baseline import load_ce_baseline
from robustdet.apis.import_results import import_results
from robustdet.apis.report_inputs import (COMPARE_FORMAT, PMK_KEYS,
                                          ROBUSTNESS_FORMAT)
from robustdet.baselines import get_baseline
from robustdet.corruptions import CORRUPTION_NAMES, SEVERITIES
from robustdet.evaluation.functional.pmk import load_pmk_data
from robustdet.evaluation.functional.pmk_report import pmk_report
from robustdet.reports import markdown_report
from robustdet.reports.html import provenance
from robustdet.reports.robustness_view import cell
from robustdet.reports.templating import hsl
from robustdet.visualization.strips import STRIP_WIDTH
from tests.conftest import REPO
from tests.result_pickles import published_like
from tests.shift_results import coco_o_result
from tests.test_evaluation.test_pmk import random_dataset
from tests.tool_process import run_tool

METRIC = 'coco/bbox_mAP'
CONFIG = 'configs/demo/<script>alert(1)</script>&frcnn.py'
FRCNN = 'michaelis2019/coco/faster-rcnn_r50_fpn/standard/bbox'
# A reference to anything outside the page, in an attribute or in CSS.
EXTERNAL = re.compile(
    r'(?<![\w-])(?:src|srcset|href|action|poster|data)\s*=\s*'
    r'(?:["\']\s*|(?=[^\s"\']))(?!data:|#)|url\(|@import', re.I)
CHROMIUM = '/usr/bin/chromium'


def _results(path, clean, cell, **extra):
    """Write a robustness results file: clean ``clean``, every image cell
    of the 19 ``cell(name, severity)``."""
    r = results_api.new_results(
        dict(config_sha256='c0' * 32, checkpoint_sha256='e1' * 32, seed=7,
             backend='fast', channel_order='rgb', region='objects'),
        config=CONFIG, checkpoint='work_dirs/demo/epoch_3.pth',
        shard='1/1', **extra)
    r['clean'] = {METRIC: clean}
    r['cells'] = {
        name: {str(s): {METRIC: cell(name, s)}
               for s in SEVERITIES}
        for name in CORRUPTION_NAMES[:19]
    }
    r['seconds'] = {f'fog/{s}': 2.0 for s in SEVERITIES}
    results_api.refresh_summary(r)
    path.parent.mkdir(parents=True, exist_ok=True)
    results_api.save_results(r, str(path))
    return r


def _pmk(path, seed=0):
    """Write the pm-k report of a random dataset."""
    path.parent.mkdir(parents=True, exist_ok=True)
    files = []
    for name, obj in zip(('sets', 'gt', 'preds'), random_dataset(seed)):
        files.append(path.parent / f'{name}.json')
        files[-1].write_text(json.dumps(obj))
    report = pmk_report(load_pmk_data(*map(str, files)), range(4),
                        sources=dict(sets=str(files[0])))
    path.write_text(json.dumps(report))
    return report


def _strips(show_dir, names, count, size=(1600, 300)):
    """``count`` generated JPEG strips per corruption in the layout of
    test_robust.py --show-dir (wider than the page shows them)."""
    rng = np.random.default_rng(0)
    for name in names:
        folder = show_dir / 'strips' / name
        folder.mkdir(parents=True)
        for i in range(count):
            pixels = rng.integers(0, 255, (size[1], size[0], 3), np.uint8)
            Image.fromarray(pixels).save(folder / f'img_{i}.jpg')


def _run(*args):
    return run_tool('tools/robustness_report.py', *args, cwd=REPO)


def _self_contained(page):
    """The page references nothing outside itself."""
    assert EXTERNAL.search(page) is None, EXTERNAL.search(page)
    assert '<script' not in page.lower() and '<link' not in page.lower()
    assert '<iframe' not in page.lower() and '<object' not in page.lower()
    for value in re.findall(r'\ssrc="([^"]*)"', page):
        assert value.startswith('data:image/'), value[:40]
    for value in re.findall(r'\shref="([^"]*)"', page):
        assert value.startswith('#'), value


def _images(page, mime):
    return [
        base64.b64decode(m) for m in re.findall(
            rf'src="data:{re.escape(mime)};base64,([A-Za-z0-9+/=]+)"', page)
    ]


def _table(page, table_id):
    """The rows of a table as lists of (cell text, style)."""
    body = re.search(
        rf'<table id="{re.escape(table_id)}"[^>]*>(.*?)</table>', page,
        re.S)
    assert body, table_id
    rows = []
    for row in re.findall(r'<tr[^>]*>(.*?)</tr>', body.group(1), re.S):
        rows.append(re.findall(
            r'<t[dh]([^>]*)>(.*?)</t[dh]>', row, re.S))
    return [[(text, attrs) for attrs, text in r] for r in rows]


def test_pmk_keys_agree_with_the_writer(tmp_path):
    assert set(PMK_KEYS) <= set(_pmk(tmp_path / 'pmk.json'))
    # The page's colour of a cell: its value's share of the reference,
    # red (0) through yellow to green (1 and above); none where undefined.
    assert hsl(cell('', 0.2, 0.4)['fraction']) == 'hsl(60, 70%, 80%)'
    assert hsl(cell('', 0.5, 0.4)['fraction']) == 'hsl(120, 70%, 80%)'
    assert cell('', None, 0.4)['fraction'] is None
    assert cell('', 0.1, 0)['fraction'] is None


def test_robustness_page(tmp_path):
    base = tmp_path / 'baseline-run' / 'robustness.json'
    _results(base, 0.30, lambda n, s: 0.30 - 0.04 * s)
    run = tmp_path / 'my-run' / 'robustness.json'
    r = _results(run, 0.40, lambda n, s: 0.40 - 0.06 * s,
                 ce_baseline=load_ce_baseline(str(base)))
    results_api.refresh_summary(r)
    results_api.save_results(r, str(run))
    assert r['corruption_errors']
    imported = tmp_path / 'imported'
    import_results([published_like(tmp_path, get_baseline(FRCNN))], 'coco',
                   str(imported), name='paper-frcnn')
    show = tmp_path / 'show'
    _strips(show, ['fog', 'gaussian_noise'], 6)
    (show / 'strips' / 'fog' / 'broken.jpg').write_bytes(b'not a jpeg')
    # a strip a level deeper (pm-k: <corruption>/<severity>/<anchor>.jpg)
    (show / 'strips' / 'h264_crf' / '3').mkdir(parents=True)
    Image.new('RGB', (400, 100), (200, 30, 30)).save(
        show / 'strips' / 'h264_crf' / '3' / 'anchor.jpg')
    out = tmp_path / 'out'
    out.mkdir()

    proc = _run(run, f'published={base}',
                imported / 'robustness.json', '--html', '--show-dir', show,
                '--out-dir', out)
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert os.listdir(out) == ['robustness.html']  # one file
    assert proc.stdout.strip().splitlines()[-1] == str(
        out / 'robustness.html')
    page = (out / 'robustness.html').read_text(encoding='utf-8')
    _self_contained(page)
    assert '&lt;script&gt;alert(1)&lt;/script&gt;&amp;frcnn.py' in page

    # the summary: P, mPC, rPC and the groups, in points
    summary = _table(page, 'summary-1')
    assert [t for t, _ in summary[0]] == [
        'metric', 'P', 'mPC', 'rPC', 'mPC_noise', 'mPC_blur',
        'mPC_weather', 'mPC_digital', 'mPC_holdout'
    ]
    assert [t for t, _ in summary[1]] == [METRIC, '40.0', '22.0', '55.0'] + [
        '22.0'
    ] * 5
    # the corruption errors against the recorded baseline
    assert 'Corruption errors' in page and 'baseline-run' in page
    # the grid: clean row first, cells coloured relative to P
    grid = _table(page, f'grid-1-{METRIC}')
    assert [t for t, _ in grid[1][:3]] == ['clean', '–', '40.0']
    assert 'colspan="5"' in grid[1][2][1]
    assert grid[2][0][0] == 'gaussian_noise'
    fog = next(row for row in grid if row[0][0] == 'fog')
    assert [t for t, _ in fog[2:]] == ['34.0', '28.0', '22.0', '16.0',
                                       '10.0', '22.0']
    hues = [int(re.search(r'hsl\((\d+),', a).group(1)) for _, a in fog[2:7]]
    assert hues == [102, 84, 66, 48, 30]  # 120 × value / P
    assert 'fog/5: 10.0 (25 % of P)' in fog[6][1]
    # the plots and the strips, inlined
    pngs = _images(page, 'image/png')
    assert len(pngs) == 3  # one per run with image cells
    assert all(p[:8] == b'\x89PNG\r\n\x1a\n' for p in pngs)
    jpegs = _images(page, 'image/jpeg')
    assert len(jpegs) == 2 * 4 + 1  # at most 4 per corruption
    sizes = []
    for data in jpegs:
        with Image.open(io.BytesIO(data)) as img:
            sizes.append(img.size)
    assert sizes == [(STRIP_WIDTH, 150)] * 8 + [(400, 100)]  # downscaled
    assert page.index('gaussian_noise / img_0.jpg') < page.index(
        'fog / img_0.jpg') < page.index('h264_crf / 3/anchor.jpg')
    assert '4 more strips not shown' in page
    assert 'fog/broken.jpg' in page
    # the other runs, and the published rows
    runs = _table(page, f'compare-{METRIC}')
    assert [row[0][0] for row in runs[1:]] == [
        'my-run', 'published', 'paper-frcnn'
    ]
    assert [t for t, _ in runs[2][1:4]] == ['30.0', '18.0', '60.0']
    published = _table(page, 'published-bbox')
    labels = [row[0][0] for row in published[1:]]
    assert labels[:3] == ['my-run', 'published', 'paper-frcnn']
    assert 'Faster R-CNN R-50-FPN (standard) (baseline)' in labels
    assert [t for t, _ in published[3][1:4]] == ['36.3', '18.2', '50.2']
    # provenance
    for text in ('c0' * 32, 'e1' * 32, 'epoch_3.pth', '>7<', '>fast<',
                 '>rgb<', '>objects<', '>1/1<', 'robustdet version',
                 'imported file', 'mmdet2-coco', 'dataset coco',
                 '10 s over 5 cells'):
        assert text in page, text


def test_shift_and_pmk_page(tmp_path):
    coco_o_result(tmp_path / 'shift-a' / 'shift.json')
    coco_o_result(tmp_path / 'shift-b' / 'shift.json', level=0.52)
    _pmk(tmp_path / 'pmk-a' / 'pmk.json', seed=0)
    report = _pmk(tmp_path / 'pmk-b' / 'pmk.json', seed=1)
    proc = _run(tmp_path / 'shift-a' / 'shift.json',
                tmp_path / 'shift-b' / 'shift.json',
                tmp_path / 'pmk-a' / 'pmk.json',
                f'other-pmk={tmp_path / "pmk-b" / "pmk.json"}', '--html')
    assert proc.returncode == 0, proc.stderr[-3000:]
    path = tmp_path / 'shift-a' / 'shift.html'
    assert proc.stdout.strip() == str(path)
    page = path.read_text(encoding='utf-8')
    _self_contained(page)
    rows = _table(page, f'shift-summary-1-{METRIC}')
    assert [t for t, _ in rows[0]][:3] == ['', 'coco', 'sketch']
    assert rows[0][-1][0] == 'COCO-O mean'
    assert [t for t, _ in rows[1][:4]] == ['AP', '42.0', '39.0', '36.0']
    assert [t for t, _ in rows[2][:3]] == ['rPC [%]', '100.0', '92.9']
    assert 'hsl(' in rows[1][2][1]
    assert 'Shift runs compared' in page and 'Pm-k runs compared' in page
    pmk = _table(page, 'pmk-summary-4')
    assert [t for t, _ in pmk[1][:2]] == [
        '0', f'{report["map"]["0"]:.4f}'
    ]
    assert len(pmk) == 1 + 4  # k = 0..3
    assert 'other-pmk' in page
    assert len(_images(page, 'image/png')) == 4
    for text in ('5a' * 32, '6b' * 32, 'configs/shift.py', '/data/coco-o',
                 'tables 4 and 5', 'largest k', 'judged per frame'):
        assert text in page, text
    # a shift run is no robustness run for the Markdown reports
    proc = _run(tmp_path / 'shift-a' / 'shift.json')
    _one_line_error(proc, 'is a robustdet shift result', '--html')


def _one_line_error(proc, *expect):
    assert proc.returncode == 2, proc.stderr[-2000:]
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith('error: '), proc.stderr
    for text in expect:
        assert text in lines[0], lines[0]


def test_bad_inputs(tmp_path):
    bad = tmp_path / 'bad'
    bad.mkdir()
    files = {
        'instances_val.json': (json.dumps(
            dict(images=[], annotations=[], categories=[], info={})),
            ['is a COCO annotation file']),
        'metrics.json': (json.dumps({METRIC: 0.3, 'coco/bbox_mAP_50': 0.5}),
                         ['is an mmdet test metrics dump', METRIC]),
        'other.json': (json.dumps(dict(alpha=1, beta=[2])),
                       ['not a robustdet result', 'keys alpha, beta']),
        'dets.json': (json.dumps([dict(image_id=1, category_id=2, score=0.5,
                                       bbox=[0, 0, 1, 1])]),
                      ['COCO-style detection results']),
        'compare.json': (json.dumps(dict(format=COMPARE_FORMAT, rows=[])),
                         ['robustdet comparison']),
        'future.json': (json.dumps(dict(format='robustdet.robustness/9')),
                        ["format 'robustdet.robustness/9'"]),
        'damaged.json': (json.dumps(dict(format=ROBUSTNESS_FORMAT)),
                         ['damaged robustdet robustness result']),
        'notes.txt': ('P is 40', ['is not JSON']),
        'empty.json': ('', ['is empty']),
        'grid.json': (json.dumps({'fog': {'1': {METRIC: 0.2}}}),
                      ['tools/import_results.py']),
    }
    for name, (text, _) in files.items():
        (bad / name).write_text(text)
    pickle = published_like(bad, get_baseline(FRCNN))
    good = tmp_path / 'run' / 'robustness.json'
    _results(good, 0.4, lambda n, s: 0.2)
    out = tmp_path / 'out'
    out.mkdir()
    cases = [([bad / n], e) for n, (_, e) in files.items()]
    cases += [
        ([pickle], ['is a Python pickle', 'tools/import_results.py']),
        ([tmp_path / 'missing.json'], ['not found']),
        ([tmp_path / 'run'], ['is a directory', 'robustness.json']),
        ([good, bad / 'metrics.json'], ['metrics dump']),
        ([good, '--show-dir', tmp_path / 'nowhere'], ['no such folder']),
        ([good, '--show-dir', bad], ['no strips/ folder']),
    ]
    for paths, expect in cases:
        proc = _run(*paths, '--html', '--out-dir', out)
        _one_line_error(proc, *expect)
        assert os.listdir(out) == [], paths
    _one_line_error(_run(good, good), '2 runs given', '--html')
    _one_line_error(_run(good, '--show-dir', out), '--show-dir needs --html')


# Chromium ----------------------------------------------------------------


def _chromium_or_skip():
    """The Chromium binary; without one the test is skipped, or fails
    where CI or ROBUSTDET_REQUIRE_CHROMIUM=1 asks for it."""
    path = shutil.which('chromium') or (
        CHROMIUM if os.access(CHROMIUM, os.X_OK) else None)
    if path:
        return path
    required = os.environ.get('ROBUSTDET_REQUIRE_CHROMIUM') == '1' or \
        os.environ.get('CI', '').lower() not in ('', '0', 'false')
    reason = ('no Chromium installed (/usr/bin/chromium, Debian package '
              '`chromium`): the HTML page is not checked in a browser')
    if required:
        pytest.fail(f'{reason}, and CI / ROBUSTDET_REQUIRE_CHROMIUM=1 '
                    'requires it (.ci/run installs it)')
    pytest.skip(reason)


# Runs Chromium with the pipe ends given as arguments on fds 3 and 4.
_EXEC_WITH_PIPE = ('import os, sys; os.dup2(int(sys.argv[1]), 3); '
                   'os.dup2(int(sys.argv[2]), 4); '
                   'os.execv(sys.argv[3], sys.argv[3:])')


def _high_fd(fd):
    """``fd`` moved to a number of at least 10."""
    high = fcntl.fcntl(fd, fcntl.F_DUPFD_CLOEXEC, 10)
    os.close(fd)
    return high


class DevTools:
    """Headless Chromium driven over the DevTools protocol on a pipe
    (``--remote-debugging-pipe``: commands on its fd 3, answers and events
    on its fd 4, each JSON message ended by a NUL byte)."""

    def __init__(self, binary, user_dir, timeout=30):
        self.deadline = time.monotonic() + timeout
        # The child's ends move to fds 10 and up first: dup2 to 3 and 4
        # would lose one if os.pipe() gave 3 or 4.
        cmd_r, self._cmd_w = os.pipe()
        self._out_r, out_w = os.pipe()
        cmd_r, out_w = (_high_fd(fd) for fd in (cmd_r, out_w))
        args = [
            '--headless', '--no-sandbox', '--disable-gpu',
            '--disable-dev-shm-usage', '--disable-quic', '--no-first-run',
            '--no-default-browser-check', '--disable-background-networking',
            '--disable-component-update', '--disable-sync',
            '--disable-default-apps', '--disable-extensions',
            '--host-resolver-rules=MAP * ~NOTFOUND',
            f'--user-data-dir={user_dir}', '--window-size=1280,2000',
            '--remote-debugging-pipe', 'about:blank'
        ]
        self.proc = subprocess.Popen(
            [sys.executable, '-c', _EXEC_WITH_PIPE, str(cmd_r), str(out_w),
             binary, *args],
            pass_fds=(cmd_r, out_w), stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        os.close(cmd_r)
        os.close(out_w)
        self._buf = b''
        self._id = 0
        self.events = []

    def _message(self):
        while b'\0' not in self._buf:
            left = self.deadline - time.monotonic()
            assert left > 0, 'Chromium did not answer in time'
            ready, _, _ = select.select([self._out_r], [], [], left)
            if ready:
                chunk = os.read(self._out_r, 1 << 20)
                assert chunk, 'Chromium closed the pipe: ' + \
                    self.proc.stderr.read().decode(errors='replace')[-2000:]
                self._buf += chunk
        raw, _, self._buf = self._buf.partition(b'\0')
        return json.loads(raw)

    def call(self, method, session=None, **params):
        """Send a command; its result (events meanwhile are kept)."""
        self._id += 1
        msg = dict(id=self._id, method=method, params=params)
        if session:
            msg['sessionId'] = session
        try:
            os.write(self._cmd_w, json.dumps(msg).encode() + b'\0')
        except BrokenPipeError:
            self.proc.wait(timeout=10)
            raise AssertionError(
                f'Chromium exited ({self.proc.returncode}): ' +
                self.proc.stderr.read().decode(errors='replace')[-2000:]
            ) from None
        while True:
            answer = self._message()
            if answer.get('id') == self._id:
                assert 'error' not in answer, (method, answer['error'])
                return answer['result']
            self.events.append(answer)

    def wait_event(self, method):
        while not any(e.get('method') == method for e in self.events):
            self.events.append(self._message())

    def close(self):
        try:
            if self.proc.poll() is None:
                self.call('Browser.close')
            self.proc.wait(timeout=10)
        except (AssertionError, OSError, subprocess.TimeoutExpired):
            self.proc.kill()
            self.proc.wait()
        finally:
            os.close(self._cmd_w)
            os.close(self._out_r)
            self.proc.stderr.close()


def _visit(tools, url):
    """Open ``url`` in a new tab: the requests it made, its console
    errors, its DOM, the number of pictures that did not render and a
    screenshot (PNG bytes)."""
    target = tools.call('Target.createTarget', url='about:blank')
    session = tools.call('Target.attachToTarget', targetId=target['targetId'],
                         flatten=True)['sessionId']
    for domain in ('Network', 'Runtime', 'Log', 'Page'):
        tools.call(f'{domain}.enable', session)
    tools.call('Emulation.setDeviceMetricsOverride', session, width=1280,
               height=2000, deviceScaleFactor=1, mobile=False)
    tools.events.clear()
    tools.call('Page.navigate', session, url=url)
    tools.wait_event('Page.loadEventFired')

    def evaluate(expression):
        return tools.call('Runtime.evaluate', session, expression=expression,
                          returnByValue=True)['result']['value']

    dom = evaluate('document.documentElement.outerHTML')
    broken = evaluate('Array.from(document.images).filter('
                      'i => !(i.complete && i.naturalWidth > 0)).length')
    shot = base64.b64decode(
        tools.call('Page.captureScreenshot', session, format='png')['data'])
    events = [e for e in tools.events if e.get('sessionId') == session]
    requests = [
        e['params']['request']['url'] for e in events
        if e['method'] == 'Network.requestWillBeSent'
    ]
    errors = [
        e['params']['entry']['text'] for e in events
        if e['method'] == 'Log.entryAdded'
        and e['params']['entry']['level'] == 'error'
    ] + [
        str(e['params']['args']) for e in events
        if e['method'] == 'Runtime.consoleAPICalled'
        and e['params']['type'] in ('error', 'assert')
    ] + [
        str(e['params']['exceptionDetails']) for e in events
        if e['method'] == 'Runtime.exceptionThrown'
    ]
    tools.call('Target.closeTarget', targetId=target['targetId'])
    return requests, errors, dom, broken, shot


def test_page_in_chromium(tmp_path):
    binary = _chromium_or_skip()
    run = tmp_path / 'browser-run' / 'robustness.json'
    _results(run, 0.4137, lambda n, s: 0.40 - 0.06 * s)
    show = tmp_path / 'show'
    _strips(show, ['fog'], 2, size=(600, 200))
    proc = _run(run, '--html', '--show-dir', show)
    assert proc.returncode == 0, proc.stderr[-3000:]
    page = run.parent / 'robustness.html'
    # the control: a page that loads from the network and logs an error
    control = tmp_path / 'control.html'
    control.write_text(
        '<!DOCTYPE html><html><body><p>control</p>'
        '<img src="http://example.invalid/a.png">'
        '<script>console.error("control error")</script></body></html>')

    tools = DevTools(binary, tmp_path / 'chromium-profile')  # 30 s at most
    try:
        requests, errors, dom, broken, shot = _visit(
            tools, page.as_uri())
        c_requests, c_errors, _, _, _ = _visit(tools, control.as_uri())
    finally:
        tools.close()

    # the checks see a request off the machine and a console error
    assert any(u.startswith('http://example.invalid/') for u in c_requests)
    assert any('control error' in e for e in c_errors), c_errors
    # (b) the page: the file itself is its only request
    assert page.as_uri() in requests, requests
    off = [u for u in requests if not u.startswith(('file:', 'data:'))]
    assert off == [], off
    # (c) no console error
    assert errors == [], errors
    # (d) P as the summary shows it, and every picture rendered
    cell = re.search(r'<table id="summary-1".*?<tbody>\s*<tr>\s*<td>'
                     r'([^<]*)</td>\s*<td class="num"[^>]*>([^<]*)</td>',
                     dom, re.S)
    assert cell and cell.groups() == (METRIC, '41.4'), dom[:2000]
    assert broken == 0
    # (a) not blank
    with Image.open(io.BytesIO(shot)) as img:
        assert img.size == (1280, 2000)
        pixels = np.asarray(img.convert('L'), dtype=np.float64)
    assert pixels.std() > 10, pixels.std()  # a blank page has 0


def test_provenance_names_cpu_dependent_corruptions():
    # A run with a corruption whose pixels depend on the CPU says so in
    # the page's provenance; one without has no such line.
    run = dict(seed=0, backend='fast', channel_order='rgb', region='all',
               cpu_dependent=['sparkles'])
    items = {i['term']: i for i in provenance('robustness', 'r.json', run)}
    assert items['pixels that depend on the CPU']['code'] == '["sparkles"]'
    run['cpu_dependent'] = []
    assert 'pixels that depend on the CPU' not in {
        i['term'] for i in provenance('robustness', 'r.json', run)}


@pytest.mark.parametrize('backend, marked', [
    ('fast', []),
    ('reference', ['defocus_blur', 'motion_blur', 'snow', 'frost',
                   'spatter']),
])
def test_results_and_markdown_mark_cpu_dependent_cells(
        tmp_path, backend, marked):
    # The results list the run's cells of the backend's CPU_DEPENDENT
    # corruptions, in the table's order, and the Markdown header names
    # them; the fast backend has none.
    r = _results(tmp_path / 'r.json', 0.5, lambda name, s: 0.3)
    r['backend'] = backend
    results_api.refresh_summary(r)
    assert r['cpu_dependent'] == marked
    md = markdown_report(r)
    if marked:
        assert ('`CPU_DEPENDENT`): ' +
                ', '.join(f'`{n}`' for n in marked)) in md
    else:
        assert 'depend on the CPU' not in md
