# Copyright (c) robustdet contributors. All rights reserved.
"""Config text: a config whose formatted text is made once per content,
YAML parsed once per text while a config loads, and the data of a
config's text read without running it.

mmengine's ``Runner`` asks for ``cfg.pretty_text`` four times while it
starts (the config it dumps into the work dir, the visualizer's copy, the
environment log and the runtime-info hook), and each time yapf formats the
whole config anew: 0.7 s each for the demo config on a 2-core AMD EPYC,
about a third of a short run's time after the imports. The formatted text
depends only on the unformatted one, so :class:`FormattedOnceConfig` keeps
it per unformatted text: the same bytes as mmengine's, made once. It
formats one top-level assignment at a time and keeps each one's text too,
so that a config that differs from one already formatted in a few keys
(the tools set ``work_dir``, ``load_from`` and the test loader;
``test_shift.py`` builds a runner per split) is formatted again only in
those: yapf formats each top-level statement on its own (between two
assignments it keeps the blank lines of its input, none here), which the
tests check against mmengine's formatting of the whole text. A text that
yapf could format otherwise (a blank line, a comment, a string across
assignments: only values whose ``str`` makes them) is formatted whole.

Loading a config, mmengine looks each ``mmdet::`` base up by model name in
every metafile that mmdet's model index lists (about a hundred YAML
files), and takes the path when no model has that name (mmengine 0.10
never finds one for a ``.py`` path): 75-85 % of ``Config.fromfile`` on
the EPYC (0.24-0.5 s of 0.3-0.6 s for the demo config, two such bases;
0.8 s of 0.9-1.0 s for the Mask R-CNN COCO-C config, four).
:func:`yaml_parsed_once` parses each YAML text once per process while a
config loads; a later load of the text gets a deep copy of that parse:
what parsing the text again gives.
"""
import ast
import collections
import contextlib
import copy
import functools
import io
import re
import threading
from typing import Any, Dict, Iterator, List, Optional

from mmengine.config import Config
from mmengine.fileio.handlers import YamlHandler, file_handlers
from yapf.yapflib.yapf_api import FormatCode

from .errors import RobustDetError

# Unformatted text -> mmengine's formatted text, the latest few.
_FORMATTED: 'collections.OrderedDict[str, str]' = collections.OrderedDict()
_KEEP = 8
# mmengine's yapf style for configs (``Config.pretty_text``).
YAPF_STYLE = dict(
    based_on_style='pep8',
    blank_line_before_nested_class_or_def=True,
    split_before_expression_after_opening_paren=True)
# mmengine indents every line of a top-level value after its first, so a
# line that starts in column 0 starts the next assignment.
_ASSIGNMENT = re.compile(r'[A-Za-z_]\w*=')
_BLANK_LINE = re.compile(r'\n[ \t]*(?:\n|$)')


class FormattedOnceConfig(Config):
    """An mmengine ``Config`` whose :attr:`pretty_text` is formatted by
    yapf once for each content (mmengine's own text, byte for byte).

    Deep copies (as ``Runner`` makes) keep the class. A change of the
    config changes its unformatted text, so it is formatted anew.
    """

    @property
    def pretty_text(self) -> str:
        formats = self._format_python_code
        # mmengine sets its private attributes this way (``__setattr__``
        # writes config keys).
        object.__setattr__(self, '_format_python_code', False)
        try:
            raw = Config.pretty_text.fget(self)
        finally:
            object.__setattr__(self, '_format_python_code', formats)
        if not formats:
            return raw
        text = _FORMATTED.get(raw)
        if text is None:
            text = _by_statement(raw) or Config.pretty_text.fget(self)
            _FORMATTED[raw] = text
            while len(_FORMATTED) > _KEEP:
                _FORMATTED.popitem(last=False)
        else:
            _FORMATTED.move_to_end(raw)
        return text


def top_level_statements(raw: str) -> Optional[List[str]]:
    """Split mmengine's unformatted config text into its top-level
    assignments.

    Args:
        raw (str): ``Config.pretty_text`` unformatted: ``key=value``
            assignments, the lines of each value after its first indented.

    Returns:
        list[str] | None: The assignments in order, or None where yapf
        could format the text otherwise than one assignment at a time: a
        text not of that shape (a top-level key that is not an identifier
        makes mmengine write one dict display), or with a blank line or a
        ``#`` (values whose ``str`` makes them; yapf keeps a blank line
        between two statements and attaches a comment to the next).
    """
    if '#' in raw or _BLANK_LINE.search(raw):
        return None
    statements = re.split(r'\n(?=\S)', raw)
    if not all(map(_ASSIGNMENT.match, statements)):
        return None
    return statements


def _by_statement(raw: str) -> Optional[str]:
    """mmengine's formatted text of ``raw``, one assignment at a time, or
    None where it must be formatted whole."""
    statements = top_level_statements(raw)
    if statements is None:
        return None
    try:
        return ''.join(map(format_statement, statements))
    except SyntaxError:  # not a statement alone: mmengine's way
        return None


# The latest few hundred assignments are kept (a config has about 30).
@functools.lru_cache(maxsize=512)
def format_statement(statement: str) -> str:
    """yapf's text of one top-level assignment in mmengine's style,
    formatted once per text.

    Args:
        statement (str): One of :func:`top_level_statements`.

    Returns:
        str: The formatted assignment, ending in a newline.

    Raises:
        SyntaxError: yapf cannot parse it alone (e.g. a string that a
            later assignment closes); :class:`FormattedOnceConfig` then
            formats the whole text as mmengine does.
    """
    try:
        text, _ = FormatCode(statement + '\n', style_config=YAPF_STYLE)
    except Exception as e:
        raise SyntaxError(f'yapf cannot format {statement[:80]!r} alone: '
                          f'{e}') from None
    return text


def format_once(cfg: Any) -> FormattedOnceConfig:
    """A deep copy of ``cfg`` as a :class:`FormattedOnceConfig`.

    Args:
        cfg (mmengine.Config): The config.

    Returns:
        FormattedOnceConfig: The same content, text formatted once.
    """
    cfg = copy.deepcopy(cfg)
    if isinstance(cfg, FormattedOnceConfig):
        return cfg
    other = FormattedOnceConfig.__new__(FormattedOnceConfig)
    other.__dict__.update(cfg.__dict__)
    return other


class ParsedOnceYamlHandler(YamlHandler):
    """mmengine's YAML handler, parsing each text once per process.

    Only what mmengine's ``load`` reads from a path (it hands the handler
    the file's text as a ``StringIO``) is kept; other file objects and
    loads with loader arguments are parsed anew. The first load of a text
    returns its parse and keeps a deep copy; a later one returns a deep
    copy of that, so a caller that changes what it got changes no later
    load (a parse that cannot be copied is not kept).
    """

    # YAML text -> its parse, the latest few hundred (mmdet lists about a
    # hundred metafiles).
    parsed: 'collections.OrderedDict[str, Any]' = collections.OrderedDict()
    keep = 512
    lock = threading.Lock()

    def load_from_fileobj(self, file: Any, **kwargs) -> Any:
        """Parse YAML, or copy the parse of the same text.

        Args:
            file (file-like): What to read.
            **kwargs: ``yaml.load``'s arguments (none: mmengine's loader).

        Returns:
            The data.
        """
        if kwargs or not isinstance(file, io.StringIO):
            return super().load_from_fileobj(file, **kwargs)
        text = file.getvalue()
        with self.lock:
            kept = self.parsed.get(text)
            if kept is not None:
                self.parsed.move_to_end(text)
        if kept is not None:
            return copy.deepcopy(kept)
        data = super().load_from_fileobj(io.StringIO(text))
        try:
            kept = copy.deepcopy(data)
        except Exception:  # objects of YAML's python tags: not kept
            return data
        with self.lock:
            self.parsed[text] = kept
            while len(self.parsed) > self.keep:
                self.parsed.popitem(last=False)
        return data


_YAML_FORMATS = ('yaml', 'yml')
_PARSED_ONCE = ParsedOnceYamlHandler()


@contextlib.contextmanager
def yaml_parsed_once() -> Iterator[None]:
    """While the block runs, mmengine's ``load`` reads ``.yaml`` and
    ``.yml`` files with :class:`ParsedOnceYamlHandler`, where mmengine's
    own ``YamlHandler`` is registered (a handler someone else registered
    is left alone); after it, each format has the handler it had, unless
    one was registered meanwhile.

    Yields:
        None
    """
    swapped = {
        fmt: handler
        for fmt, handler in file_handlers.items()
        if fmt in _YAML_FORMATS and type(handler) is YamlHandler
    }
    file_handlers.update(dict.fromkeys(swapped, _PARSED_ONCE))
    try:
        yield
    finally:
        for fmt, handler in swapped.items():
            if file_handlers.get(fmt) is _PARSED_ONCE:
                file_handlers[fmt] = handler


def literal_config(text: str) -> Dict[str, Any]:
    """The top-level assignments of a config's text as plain data,
    without running any of it (a checkpoint's ``meta['cfg']`` comes from
    whoever made the file).

    Literals, lists, tuples, dicts and ``dict(key=value, ...)`` calls are
    read as data; any other expression (a name, an attribute, another
    call) is kept as its source text and never evaluated; statements
    other than ``name = value`` are skipped.

    Args:
        text (str): The config's Python text (mmengine's
            ``Config.pretty_text``).

    Returns:
        dict: Name to value.

    Raises:
        RobustDetError: The text is not Python, or is nested too deeply.
    """
    try:
        tree = ast.parse(text)
        return {
            node.targets[0].id: _literal(node.value)
            for node in tree.body
            if isinstance(node, ast.Assign) and len(node.targets) == 1
            and isinstance(node.targets[0], ast.Name)
        }
    except SyntaxError as e:
        raise RobustDetError(
            f'the config text is not Python (line {e.lineno}: {e.msg})'
        ) from None
    except (RecursionError, MemoryError):
        raise RobustDetError('the config text is nested too deeply') from None


def _literal(node: ast.AST) -> Any:
    """The data of an expression node (see :func:`literal_config`)."""
    if isinstance(node, ast.Constant):
        return node.value
    if isinstance(node, (ast.List, ast.Tuple, ast.Set)):
        values = [_literal(e) for e in node.elts]
        return tuple(values) if isinstance(node, ast.Tuple) else values
    if isinstance(node, ast.Dict):
        return {
            _literal(k): _literal(v)
            for k, v in zip(node.keys, node.values) if k is not None
        }
    if (isinstance(node, ast.Call) and isinstance(node.func, ast.Name)
            and node.func.id == 'dict' and not node.args):
        return {kw.arg: _literal(kw.value) for kw in node.keywords if kw.arg}
    if isinstance(node, ast.UnaryOp) and isinstance(
            node.op, ast.USub) and isinstance(node.operand, ast.Constant):
        value = node.operand.value
        if isinstance(value, (int, float)) and not isinstance(value, bool):
            return -value
    return ast.unparse(node)
