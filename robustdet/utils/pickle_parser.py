# Copyright (c) robustdet contributors. All rights reserved.
"""The opcode reader of :mod:`robustdet.utils.safe_pickle`.

:func:`parse` reads the opcodes of pickle protocols 0-5 and builds the
inert stand-ins of :mod:`robustdet.utils.pickle_values`: an allowed
global resolves to a marker that records its arguments, never to numpy's
or Python's function, and every opcode checks what it is given (see
:mod:`robustdet.utils.safe_pickle` for what is allowed). Nothing from the
stream reaches a constructor here; the caps that bound the work are the
``MAX_*`` constants of :mod:`~robustdet.utils.pickle_values`.
"""
import codecs
import itertools
import struct
import warnings
from typing import Any, Callable, Dict, List, Optional, Tuple

from . import pickle_values as values
from .pickle_values import (HIGHEST_PROTOCOL, MAX_BYTES, MAX_INT_BITS,
                            MAX_NUMBER_TEXT, Global, Map, Seq, build, call,
                            cap_error, describe, malformed, refused,
                            resolve_global, show, truncated)

# -- the parser -----------------------------------------------------------


class _Parser:
    """Reads one pickle's opcodes into stand-ins (see the module
    docstring). Only plain values and stand-ins are made; every opcode
    checks what it is given."""

    def __init__(self, data: bytes):
        self.data = data
        self.pos = 0
        self.stack: List[Any] = []
        self.marks: List[List[Any]] = []
        self.memo: Dict[int, Any] = {}
        self.objects = 0

    # reading

    def byte(self) -> int:
        pos = self.pos
        if pos >= len(self.data):
            raise truncated()
        self.pos = pos + 1
        return self.data[pos]

    def read(self, n: int) -> bytes:
        if n < 0:
            raise malformed('a negative length')
        end = self.pos + n
        if end > len(self.data):
            raise truncated()
        out = self.data[self.pos:end]
        self.pos = end
        return out

    def readline(self, limit: Optional[int] = None) -> bytes:
        end = self.data.find(b'\n', self.pos)
        if end < 0:
            raise truncated()
        if limit is not None and end - self.pos > limit:
            raise cap_error(f'a text argument of {end - self.pos} bytes',
                            f'{limit} bytes')
        out = self.data[self.pos:end]
        self.pos = end + 1
        return out

    def read_size(self, fmt: str) -> int:
        n = struct.unpack(fmt, self.read(struct.calcsize(fmt)))[0]
        if n > MAX_BYTES:
            raise cap_error(f'a string of {n} bytes', f'{MAX_BYTES} bytes')
        return n

    # the stack

    def push(self, value: Any) -> None:
        self.objects += 1
        if self.objects > values.MAX_OBJECTS:
            raise cap_error(f'more than {values.MAX_OBJECTS} values',
                            str(values.MAX_OBJECTS))
        self.stack.append(value)

    def pop(self) -> Any:
        if not self.stack:
            raise malformed('an opcode with too few values on the stack')
        return self.stack.pop()

    def top(self) -> Any:
        if not self.stack:
            raise malformed('an opcode with too few values on the stack')
        return self.stack[-1]

    def pop_mark(self) -> List[Any]:
        if not self.marks:
            raise malformed('an opcode without its MARK')
        items = self.stack
        self.stack = self.marks.pop()
        return items

    # the loop

    def parse(self) -> Any:
        """The stand-in the pickle holds (its STOP opcode's value)."""
        data, dispatch = self.data, _DISPATCH
        for _ in itertools.repeat(None, values.MAX_OPCODES):
            pos = self.pos
            if pos >= len(data):
                raise truncated()
            self.pos = pos + 1
            handler = dispatch.get(data[pos])
            if handler is None:
                raise malformed(
                    f'unknown opcode {data[pos:pos + 1]!r} at byte {pos}')
            if handler(self):
                return self.stack[0]
        raise cap_error(f'more than {values.MAX_OPCODES} opcodes',
                        str(values.MAX_OPCODES))

    def op_stop(self) -> bool:
        if self.marks or len(self.stack) != 1:
            raise malformed('a STOP with other than one value on the stack')
        if self.data[self.pos:].strip():
            raise malformed(
                f'{len(self.data) - self.pos} bytes after its STOP opcode')
        return True

    # protocol and framing

    def op_proto(self) -> None:
        proto = self.byte()
        if proto > HIGHEST_PROTOCOL:
            raise malformed(f'unsupported protocol {proto}')

    def op_frame(self) -> None:
        size = struct.unpack('<Q', self.read(8))[0]
        if size > len(self.data) - self.pos:
            raise truncated()

    # marks and the stack

    def op_mark(self) -> None:
        if len(self.marks) >= values.MAX_OBJECTS:
            raise cap_error('too many MARKs', str(values.MAX_OBJECTS))
        self.marks.append(self.stack)
        self.stack = []

    def op_pop(self) -> None:
        if self.stack:
            self.stack.pop()
        else:
            self.pop_mark()

    def op_pop_mark(self) -> None:
        self.pop_mark()

    def op_dup(self) -> None:
        self.stack.append(self.top())

    # constants and numbers

    def op_none(self) -> None:
        self.push(None)

    def op_true(self) -> None:
        self.push(True)

    def op_false(self) -> None:
        self.push(False)

    def _number_text(self) -> str:
        text = self.readline(MAX_NUMBER_TEXT)
        try:
            return text.decode('ascii')
        except UnicodeDecodeError:
            raise malformed('a number that is not ASCII text') from None

    def _int(self, value: int) -> int:
        if not -(1 << (MAX_INT_BITS - 1)) <= value < (1 << MAX_INT_BITS):
            raise cap_error('an integer outside [-2**63, 2**64)',
                       f'{MAX_INT_BITS} bits')
        return value

    def _parse_int(self, text: str) -> int:
        try:
            return self._int(int(text))
        except ValueError:
            raise malformed(f'the integer {show(text)}') from None

    def op_int(self) -> None:
        text = self._number_text()
        if text in ('00', '01'):  # protocol 0's False and True
            self.push(text == '01')
        else:
            self.push(self._parse_int(text))

    def op_binint(self) -> None:
        self.push(struct.unpack('<i', self.read(4))[0])

    def op_binint1(self) -> None:
        self.push(self.byte())

    def op_binint2(self) -> None:
        self.push(struct.unpack('<H', self.read(2))[0])

    def op_long(self) -> None:
        text = self._number_text()
        self.push(self._parse_int(text[:-1] if text.endswith('L') else text))

    def _long(self, size: int) -> None:
        if size > MAX_INT_BITS // 8 + 1:
            raise cap_error(f'an integer of {size} bytes',
                            f'{MAX_INT_BITS} bits')
        self.push(
            self._int(int.from_bytes(self.read(size), 'little',
                                     signed=True)))

    def op_long1(self) -> None:
        self._long(self.byte())

    def op_long4(self) -> None:
        size = struct.unpack('<i', self.read(4))[0]
        if size < 0:
            raise malformed('a LONG4 of negative length')
        self._long(size)

    def op_float(self) -> None:
        text = self._number_text()
        try:
            self.push(float(text))
        except ValueError:
            raise malformed(f'the float {show(text)}') from None

    def op_binfloat(self) -> None:
        self.push(struct.unpack('>d', self.read(8))[0])

    # strings and bytes: Python 2 strings are read as latin-1

    def op_string(self) -> None:
        line = self.readline(MAX_BYTES)
        if len(line) < 2 or line[:1] != line[-1:] or line[:1] not in b'"\'':
            raise malformed('a STRING without its quotes')
        with warnings.catch_warnings():
            warnings.simplefilter('error')  # invalid escapes: malformed
            try:
                raw = codecs.escape_decode(line[1:-1])[0]
            except (ValueError, Warning):
                raise malformed('a STRING with a broken escape') from None
        self.push(raw.decode('latin1'))

    def op_binstring(self) -> None:
        size = struct.unpack('<i', self.read(4))[0]
        if size > MAX_BYTES:
            raise cap_error(f'a string of {size} bytes', f'{MAX_BYTES} bytes')
        self.push(self.read(size).decode('latin1'))

    def op_short_binstring(self) -> None:
        self.push(self.read(self.byte()).decode('latin1'))

    def _text(self, raw: bytes, codec: str) -> None:
        try:
            # the C codecs themselves: a codec found by its name is
            # imported (encodings.*) the first time
            self.push(codecs.raw_unicode_escape_decode(raw)[0] if codec ==
                      'raw-unicode-escape' else codecs.utf_8_decode(
                          raw, 'strict', True)[0])
        except UnicodeDecodeError:
            raise malformed(f'a string that is not {codec}') from None

    def op_unicode(self) -> None:
        self._text(self.readline(MAX_BYTES), 'raw-unicode-escape')

    def op_binunicode(self) -> None:
        self._text(self.read(self.read_size('<I')), 'utf-8')

    def op_short_binunicode(self) -> None:
        self._text(self.read(self.byte()), 'utf-8')

    def op_binunicode8(self) -> None:
        self._text(self.read(self.read_size('<Q')), 'utf-8')

    def op_binbytes(self) -> None:
        self.push(self.read(self.read_size('<I')))

    def op_short_binbytes(self) -> None:
        self.push(self.read(self.byte()))

    def op_binbytes8(self) -> None:
        self.push(self.read(self.read_size('<Q')))

    def op_bytearray8(self) -> None:
        # numpy's protocol-5 arrays carry their data in-band as this
        self.push(self.read(self.read_size('<Q')))

    # containers

    def op_empty_list(self) -> None:
        self.push(Seq('list', []))

    def op_empty_tuple(self) -> None:
        self.push(Seq('tuple', []))

    def op_empty_dict(self) -> None:
        self.push(Map(False, []))

    def op_empty_set(self) -> None:
        self.push(Seq('set', []))

    def op_list(self) -> None:
        self.push(Seq('list', self.pop_mark()))

    def op_tuple(self) -> None:
        self.push(Seq('tuple', self.pop_mark()))

    def _tuple(self, n: int) -> None:
        if len(self.stack) < n:
            raise malformed('an opcode with too few values on the stack')
        items = self.stack[len(self.stack) - n:]
        del self.stack[len(self.stack) - n:]
        self.push(Seq('tuple', items))

    def op_tuple1(self) -> None:
        self._tuple(1)

    def op_tuple2(self) -> None:
        self._tuple(2)

    def op_tuple3(self) -> None:
        self._tuple(3)

    def op_frozenset(self) -> None:
        self.push(Seq('frozenset', self.pop_mark()))

    def _pairs(self, items: List[Any]) -> List[Tuple[Any, Any]]:
        if len(items) % 2:
            raise malformed('a dict with a key but no value')
        return list(zip(items[::2], items[1::2]))

    def op_dict(self) -> None:
        self.push(Map(False, self._pairs(self.pop_mark())))

    def _target(self, kinds: Tuple[str, ...], opcode: str) -> Any:
        target = self.top()
        ok = (isinstance(target, Map) if kinds == ('dict', ) else
              isinstance(target, Seq) and target.kind in kinds)
        if not ok:
            raise refused(f'{opcode} on {describe(target)}')
        return target

    def op_setitem(self) -> None:
        value, key = self.pop(), self.pop()
        self._target(('dict', ), 'SETITEM').add([(key, value)])

    def op_setitems(self) -> None:
        items = self.pop_mark()
        self._target(('dict', ), 'SETITEMS').add(
            self._pairs(items))

    def op_append(self) -> None:
        value = self.pop()
        self._target(('list', ), 'APPEND').add([value])

    def op_appends(self) -> None:
        items = self.pop_mark()
        self._target(('list', ), 'APPENDS').add(items)

    def op_additems(self) -> None:
        items = self.pop_mark()
        self._target(('set', ), 'ADDITEMS').add(items)

    # the memo

    def _put(self, index: int) -> None:
        if index < 0:
            raise malformed('a negative memo index')
        if len(self.memo) >= values.MAX_OBJECTS and index not in self.memo:
            raise cap_error(f'more than {values.MAX_OBJECTS} memo entries',
                            str(values.MAX_OBJECTS))
        self.memo[index] = self.top()

    def _get(self, index: int) -> None:
        try:
            self.stack.append(self.memo[index])
        except KeyError:
            raise malformed(f'memo entry {index} read before it was '
                            'written') from None

    def op_put(self) -> None:
        self._put(self._parse_int(self._number_text()))

    def op_binput(self) -> None:
        self._put(self.byte())

    def op_long_binput(self) -> None:
        self._put(struct.unpack('<I', self.read(4))[0])

    def op_memoize(self) -> None:
        self._put(len(self.memo))

    def op_get(self) -> None:
        self._get(self._parse_int(self._number_text()))

    def op_binget(self) -> None:
        self._get(self.byte())

    def op_long_binget(self) -> None:
        self._get(struct.unpack('<I', self.read(4))[0])

    # globals and calls

    def _global_name(self) -> str:
        raw = self.readline(256)
        try:
            return raw.decode('utf-8')
        except UnicodeDecodeError:
            raise malformed('a global whose name is not UTF-8') from None

    def op_global(self) -> None:
        module = self._global_name()
        self.push(resolve_global(module, self._global_name()))

    def op_stack_global(self) -> None:
        name, module = self.pop(), self.pop()
        self.push(resolve_global(module, name))

    def op_reduce(self) -> None:
        args, func = self.pop(), self.pop()
        if not isinstance(func, Global):
            raise refused(f'a call of {describe(func)}')
        if not (isinstance(args, Seq) and args.kind == 'tuple'):
            raise malformed(f'the arguments of {func.name} are not a tuple')
        self.push(call(func.name, args.items))

    def op_build(self) -> None:
        state = self.pop()
        build(self.top(), state)

    def op_inst(self) -> None:
        module = self._global_name()
        resolve_global(module, self._global_name())  # an unknown name: named
        raise refused('an object made with INST, which results pickles '
                      'do not use')


def _refuser(what: str) -> Callable[[_Parser], None]:

    def handler(parser: _Parser) -> None:
        raise refused(what)

    return handler


def _dispatch() -> Dict[int, Callable[[_Parser], None]]:
    p = _Parser
    table = {
        b'\x80': p.op_proto, b'\x95': p.op_frame, b'.': p.op_stop,
        b'(': p.op_mark, b'0': p.op_pop, b'1': p.op_pop_mark,
        b'2': p.op_dup, b'N': p.op_none, b'\x88': p.op_true,
        b'\x89': p.op_false, b'I': p.op_int, b'J': p.op_binint,
        b'K': p.op_binint1, b'M': p.op_binint2, b'L': p.op_long,
        b'\x8a': p.op_long1, b'\x8b': p.op_long4, b'F': p.op_float,
        b'G': p.op_binfloat, b'S': p.op_string, b'T': p.op_binstring,
        b'U': p.op_short_binstring, b'V': p.op_unicode,
        b'X': p.op_binunicode, b'\x8c': p.op_short_binunicode,
        b'\x8d': p.op_binunicode8, b'B': p.op_binbytes,
        b'C': p.op_short_binbytes, b'\x8e': p.op_binbytes8,
        b'\x96': p.op_bytearray8, b']': p.op_empty_list,
        b')': p.op_empty_tuple, b'}': p.op_empty_dict,
        b'\x8f': p.op_empty_set, b'l': p.op_list, b't': p.op_tuple,
        b'\x85': p.op_tuple1, b'\x86': p.op_tuple2, b'\x87': p.op_tuple3,
        b'\x91': p.op_frozenset, b'd': p.op_dict, b's': p.op_setitem,
        b'u': p.op_setitems, b'a': p.op_append, b'e': p.op_appends,
        b'\x90': p.op_additems, b'p': p.op_put, b'q': p.op_binput,
        b'r': p.op_long_binput, b'\x94': p.op_memoize, b'g': p.op_get,
        b'h': p.op_binget, b'j': p.op_long_binget, b'c': p.op_global,
        b'\x93': p.op_stack_global, b'R': p.op_reduce, b'b': p.op_build,
        b'i': p.op_inst,
        b'o': _refuser('an object made with OBJ, which results pickles do '
                       'not use'),
        b'\x81': _refuser('an object made with NEWOBJ, which results '
                          'pickles do not use'),
        b'\x92': _refuser('an object made with NEWOBJ_EX, which results '
                          'pickles do not use'),
        b'P': _refuser('a persistent id'),
        b'Q': _refuser('a persistent id'),
        b'\x82': _refuser('an extension code (EXT1)'),
        b'\x83': _refuser('an extension code (EXT2)'),
        b'\x84': _refuser('an extension code (EXT4)'),
        b'\x97': _refuser('an out-of-band buffer'),
        b'\x98': _refuser('an out-of-band buffer'),
    }
    return {k[0]: v for k, v in table.items()}


_DISPATCH = _dispatch()
# The first bytes a pickle can start with (what a file sniffer checks).
PICKLE_FIRST_BYTES = frozenset(_DISPATCH) - {b'.'[0]}


def parse(data: bytes) -> Any:
    """Read one pickle into stand-ins.

    Args:
        data (bytes): The pickle.

    Returns:
        The value of its STOP opcode: a plain value or a stand-in.

    Raises:
        UnsafePickleError: Not a pickle, truncated, over a cap, or outside
            the allow-list.
    """
    return _Parser(data).parse()
