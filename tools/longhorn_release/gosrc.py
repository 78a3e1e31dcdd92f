"""Just enough Go to read longhorn-manager's settings: package-level constants and variables,
and the values of the constant expressions they are built from.

Nothing is compiled or run. A file is split into tokens (with Go's automatic semicolons), the
top-level `const`, `var`, `type`, `import` and `func` declarations are found, and an
expression is parsed into a small tree that is evaluated on demand against the package's
declarations (and the declarations of the packages of the same module it imports). Supported
expressions: string, raw string, rune, integer and float literals; identifiers and `pkg.Name`;
conversions `T(x)`; `fmt.Sprintf`, `strconv.Itoa`; `+ - * / %`, unary `-`; composite literals
of maps, slices and structs. Anything else is `Unresolved` (a variable without a value, such as
meta.Version, which the build fills in), never a guess.
"""

import re
from pathlib import Path

MODULE = "github.com/longhorn/longhorn-manager"


class GoError(Exception):
    pass


class Unresolved(Exception):
    """An expression whose value is not in the source (or not in the subset read here)."""


# --- tokens --------------------------------------------------------------------------------

TOKEN = re.compile(r"""
    (?P<ws>[ \t\r]+)
  | (?P<nl>\n)
  | (?P<lcomment>//[^\n]*)
  | (?P<bcomment>/\*.*?\*/)
  | (?P<raw>`[^`]*`)
  | (?P<str>"(?:[^"\\\n]|\\.)*")
  | (?P<rune>'(?:[^'\\\n]|\\.[^']*)')
  | (?P<num>0[xX][0-9a-fA-F_]+|0[bB][01_]+|0[oO][0-7_]+|(?:\d[\d_]*)?\.?\d[\d_]*(?:[eE][+-]?\d+)?|\d[\d_]*\.)
  | (?P<ident>[A-Za-z_][A-Za-z0-9_]*)
  | (?P<op>\.\.\.|<<=|>>=|&\^=|&&|\|\||<-|\+\+|--|==|!=|<=|>=|:=|\+=|-=|\*=|/=|%=|&=|\|=|\^=|<<|>>|&\^|[-+*/%&|^<>=!()\[\]{},;.:~])
""", re.S | re.X)

# Tokens after which a newline ends the statement (the Go specification's semicolon rule).
SEMI_AFTER_KW = {"break", "continue", "fallthrough", "return"}
SEMI_AFTER_OP = {"++", "--", ")", "]", "}"}


class Tok:
    __slots__ = ("kind", "text", "line")

    def __init__(self, kind, text, line):
        self.kind, self.text, self.line = kind, text, line

    def __repr__(self):
        return "%s:%r@%d" % (self.kind, self.text, self.line)


def tokenize(text, where):
    toks = []
    pos, line = 0, 1

    def needs_semi():
        if not toks:
            return False
        t = toks[-1]
        return (t.kind in ("ident", "str", "raw", "rune", "num") and t.text not in KEYWORDS
                or t.text in SEMI_AFTER_KW or (t.kind == "op" and t.text in SEMI_AFTER_OP))

    while pos < len(text):
        m = TOKEN.match(text, pos)
        if not m:
            raise GoError("%s:%d: cannot read %r" % (where, line, text[pos:pos + 20]))
        kind = m.lastgroup
        s = m.group()
        if kind == "nl" or (kind == "bcomment" and "\n" in s):
            if needs_semi():
                toks.append(Tok("op", ";", line))
        elif kind in ("ws", "lcomment", "bcomment"):
            pass
        else:
            if kind == "ident" and s in KEYWORDS:
                toks.append(Tok("kw", s, line))
            else:
                toks.append(Tok(kind, s, line))
        line += s.count("\n")
        pos = m.end()
    if needs_semi():
        toks.append(Tok("op", ";", line))
    return toks


KEYWORDS = {"break", "case", "chan", "const", "continue", "default", "defer", "else",
            "fallthrough", "for", "func", "go", "goto", "if", "import", "interface", "map",
            "package", "range", "return", "select", "struct", "switch", "type", "var"}


def unquote(tok):
    """The value of a Go string or rune literal."""
    s = tok.text
    if tok.kind == "raw":
        return s[1:-1].replace("\r", "")
    body = s[1:-1]
    out = []
    i = 0
    simple = {"a": "\a", "b": "\b", "f": "\f", "n": "\n", "r": "\r", "t": "\t", "v": "\v",
              "\\": "\\", "'": "'", '"': '"'}
    raw_bytes = bytearray()

    def flush_bytes():
        if raw_bytes:
            out.append(raw_bytes.decode("utf-8", errors="replace"))
            raw_bytes.clear()

    while i < len(body):
        c = body[i]
        if c != "\\":
            flush_bytes()
            out.append(c)
            i += 1
            continue
        e = body[i + 1]
        if e in simple:
            flush_bytes()
            out.append(simple[e])
            i += 2
        elif e == "x":
            raw_bytes.append(int(body[i + 2:i + 4], 16))
            i += 4
        elif e in "01234567":
            raw_bytes.append(int(body[i + 1:i + 4], 8))
            i += 4
        elif e == "u":
            flush_bytes()
            out.append(chr(int(body[i + 2:i + 6], 16)))
            i += 6
        elif e == "U":
            flush_bytes()
            out.append(chr(int(body[i + 2:i + 10], 16)))
            i += 10
        else:
            raise GoError("line %d: unknown escape \\%s" % (tok.line, e))
    flush_bytes()
    value = "".join(out)
    if tok.kind == "rune":
        return ord(value)
    return value


def number(text):
    t = text.replace("_", "")
    if t[:2] in ("0x", "0X"):
        return int(t, 16)
    if t[:2] in ("0o", "0O"):
        return int(t[2:], 8)
    if t[:2] in ("0b", "0B"):
        return int(t[2:], 2)
    if any(c in t for c in ".eE"):
        return float(t)
    if len(t) > 1 and t[0] == "0":
        return int(t, 8)
    return int(t)


# --- expression trees ----------------------------------------------------------------------
# ("lit", value) ("ident", name) ("sel", pkg_or_expr, name) ("call", fn, [args])
# ("binary", op, a, b) ("unary", op, a) ("composite", type, [(key|None, value)])
# Types: ("tname", name) ("tsel", pkg, name) ("map", k, v) ("slice", t) ("array", n, t)
#        ("ptr", t) ("other", text)


class Parser:
    def __init__(self, toks, where):
        self.toks, self.i, self.where = toks, 0, where

    def peek(self, k=0):
        j = self.i + k
        return self.toks[j] if j < len(self.toks) else Tok("eof", "", -1)

    def next(self):
        t = self.peek()
        self.i += 1
        return t

    def at(self, text):
        return self.peek().text == text and self.peek().kind in ("op", "kw")

    def expect(self, text):
        t = self.next()
        if t.text != text:
            raise GoError("%s:%d: expected %r, found %r" % (self.where, t.line, text, t.text))
        return t

    def fail(self, what):
        t = self.peek()
        raise GoError("%s:%d: %s (at %r)" % (self.where, t.line, what, t.text))

    def skip_balanced(self):
        """Skip from an opening bracket to its match (inclusive)."""
        pairs = {"(": ")", "[": "]", "{": "}"}
        stack = [pairs[self.next().text]]
        while stack:
            t = self.next()
            if t.kind == "eof":
                self.fail("unbalanced brackets")
            if t.kind == "op" and t.text in pairs:
                stack.append(pairs[t.text])
            elif t.kind == "op" and t.text == stack[-1]:
                stack.pop()

    # types
    def parse_type(self):
        t = self.peek()
        if t.text == "map" and t.kind == "kw":
            self.next()
            self.expect("[")
            k = self.parse_type()
            self.expect("]")
            return ("map", k, self.parse_type())
        if self.at("["):
            self.next()
            if self.at("]"):
                self.next()
                return ("slice", self.parse_type())
            n = self.parse_expr()
            self.expect("]")
            return ("array", n, self.parse_type())
        if self.at("*"):
            self.next()
            return ("ptr", self.parse_type())
        if t.kind == "kw" and t.text in ("interface", "struct"):
            self.next()
            start = self.i
            self.skip_balanced()
            return ("other", t.text + "{...}" if self.i - start > 2 else t.text + "{}")
        if t.kind == "kw" and t.text == "func":
            self.next()
            self.skip_balanced()
            if self.at("("):
                self.skip_balanced()
            elif self.peek().kind == "ident":
                self.parse_type()
            return ("other", "func")
        if t.kind == "kw" and t.text == "chan":
            self.next()
            return ("other", "chan %s" % (self.parse_type(),))
        if t.kind == "ident":
            self.next()
            if self.at(".") and self.peek(1).kind == "ident":
                self.next()
                return ("tsel", t.text, self.next().text)
            if self.at("["):  # generic instantiation: not used in the declarations read
                self.skip_balanced()
            return ("tname", t.text)
        if self.at("("):
            self.next()
            ty = self.parse_type()
            self.expect(")")
            return ty
        self.fail("expected a type")

    # expressions
    BINARY = {"||": 1, "&&": 2, "==": 3, "!=": 3, "<": 3, "<=": 3, ">": 3, ">=": 3,
              "+": 4, "-": 4, "|": 4, "^": 4, "*": 5, "/": 5, "%": 5, "<<": 5, ">>": 5,
              "&": 5, "&^": 5}

    def parse_expr(self, prec=1, composite_ok=True):
        left = self.parse_unary(composite_ok)
        while True:
            t = self.peek()
            p = self.BINARY.get(t.text) if t.kind == "op" else None
            if p is None or p < prec:
                return left
            self.next()
            right = self.parse_expr(p + 1, composite_ok)
            left = ("binary", t.text, left, right)

    def parse_unary(self, composite_ok):
        t = self.peek()
        if t.kind == "op" and t.text in ("-", "+", "!", "^", "&", "*", "<-"):
            self.next()
            return ("unary", t.text, self.parse_unary(composite_ok))
        return self.parse_primary(composite_ok)

    def parse_operand(self, composite_ok):
        t = self.peek()
        if t.kind in ("str", "raw", "rune"):
            self.next()
            return ("lit", unquote(t))
        if t.kind == "num":
            self.next()
            return ("lit", number(t.text))
        if t.kind == "kw" and t.text == "func":
            # A function literal: its type, then its body.
            self.next()
            self.skip_balanced()
            if self.at("("):
                self.skip_balanced()
            elif not self.at("{"):
                self.parse_type()
            self.skip_balanced()
            return ("other", "func literal")
        if t.kind == "kw" and t.text in ("map", "struct", "interface", "chan") or self.at("["):
            ty = self.parse_type()
            if self.at("{"):
                return self.parse_composite(ty)
            if self.at("("):
                return ("typeexpr", ty)
            return ("typeexpr", ty)
        if self.at("("):
            self.next()
            e = self.parse_expr()
            self.expect(")")
            return ("paren", e)
        if t.kind == "ident":
            self.next()
            return ("ident", t.text)
        self.fail("expected an expression")

    def parse_primary(self, composite_ok):
        e = self.parse_operand(composite_ok)
        while True:
            if self.at("."):
                self.next()
                if self.at("("):  # type assertion
                    self.skip_balanced()
                    e = ("other", "type assertion")
                    continue
                name = self.next()
                e = ("sel", e, name.text)
            elif self.at("("):
                self.next()
                args = []
                while not self.at(")"):
                    args.append(self.parse_expr())
                    if self.at("..."):
                        self.next()
                    if self.at(","):
                        self.next()
                    elif not self.at(")"):
                        self.fail("expected , or )")
                self.expect(")")
                e = ("call", e, args)
            elif self.at("["):
                self.next()
                idx = self.parse_expr() if not self.at(":") else None
                if self.at(":"):
                    self.next()
                    if not self.at("]"):
                        self.parse_expr()
                    e = ("other", "slice expression")
                else:
                    e = ("index", e, idx)
                self.expect("]")
            elif self.at("{") and composite_ok and e[0] in ("ident", "sel"):
                ty = ("tname", e[1]) if e[0] == "ident" else ("tsel", e[1][1], e[2]) \
                    if e[1][0] == "ident" else None
                if ty is None:
                    return e
                e = self.parse_composite(ty)
            else:
                return e

    def parse_composite(self, ty):
        self.expect("{")
        elems = []
        while not self.at("}"):
            if self.at("{"):
                value = self.parse_composite(element_type(ty))
            else:
                value = self.parse_expr()
            if self.at(":"):
                self.next()
                key = value
                if self.at("{"):
                    value = self.parse_composite(element_type(ty))
                else:
                    value = self.parse_expr()
                elems.append((key, value))
            else:
                elems.append((None, value))
            if self.at(","):
                self.next()
            elif self.at(";"):  # a newline before the closing brace inserts none in Go
                self.next()
            elif not self.at("}"):
                self.fail("expected , or } in a composite literal")
        self.expect("}")
        return ("composite", ty, elems)


def element_type(ty):
    if ty[0] in ("slice", "array"):
        return ty[-1]
    if ty[0] == "map":
        return ty[2]
    return ("other", "elided")


# --- declarations --------------------------------------------------------------------------

class Decl:
    """One package-level constant or variable: its expression (None: declared without a
    value) and the file it is in (for that file's imports)."""

    __slots__ = ("name", "kind", "expr", "type", "file")

    def __init__(self, name, kind, expr, type_, file):
        self.name, self.kind, self.expr, self.type, self.file = name, kind, expr, type_, file


class GoFile:
    def __init__(self, path, rel, text):
        self.path, self.rel = path, rel
        self.imports = {}      # alias -> import path
        self.funcs = {}        # name (Recv.Name for methods) -> (first token, last token) index
        self.toks = tokenize(text, rel)
        self.decls = []
        self.types = set()
        self._parse()

    def _parse(self):
        p = Parser(self.toks, self.rel)
        while p.peek().kind != "eof":
            t = p.next()
            if t.text == ";":
                continue
            if t.kind == "kw" and t.text == "package":
                p.next()
            elif t.kind == "kw" and t.text == "import":
                self._group(p, self._import_spec)
            elif t.kind == "kw" and t.text in ("const", "var"):
                kind = t.text
                state = {"prev": None}
                self._group(p, lambda p: self._value_spec(p, kind, state))
            elif t.kind == "kw" and t.text == "type":
                self._group(p, self._type_spec)
            elif t.kind == "kw" and t.text == "func":
                recv = None
                if p.at("("):
                    start = p.i
                    p.skip_balanced()
                    names = [x.text for x in self.toks[start:p.i] if x.kind == "ident"]
                    recv = names[-1] if names else None
                name = p.next().text
                if p.at("["):
                    p.skip_balanced()
                p.skip_balanced()  # parameters
                while not p.at("{") and not p.at(";"):
                    if p.at("(") or p.at("[") or p.at("{"):
                        p.skip_balanced()
                    else:
                        p.next()
                if p.at("{"):
                    start = p.i
                    p.skip_balanced()
                    self.funcs["%s.%s" % (recv, name) if recv else name] = (start, p.i)
            else:
                raise GoError("%s:%d: unexpected %r at top level" % (self.rel, t.line, t.text))

    def _group(self, p, spec):
        if p.at("("):
            p.next()
            while not p.at(")"):
                if p.at(";"):
                    p.next()
                    continue
                spec(p)
            p.next()
        else:
            spec(p)

    def _import_spec(self, p):
        alias = None
        if p.peek().kind == "ident" or p.at("."):
            alias = p.next().text
        path = unquote(p.next())
        if alias is None:
            alias = path.rsplit("/", 1)[-1]
        self.imports[alias] = path
        if p.at(";"):
            p.next()

    def _type_spec(self, p):
        name = p.next().text
        self.types.add(name)
        if p.at("["):
            p.skip_balanced()
        if p.at("="):
            p.next()
        p.parse_type()
        if p.at(";"):
            p.next()

    def _value_spec(self, p, kind, state):
        names = [p.next().text]
        while p.at(","):
            p.next()
            names.append(p.next().text)
        ty = None
        if not p.at("=") and not p.at(";") and not p.at(")"):
            ty = p.parse_type()
        exprs = None
        if p.at("="):
            p.next()
            exprs = [p.parse_expr()]
            while p.at(","):
                p.next()
                exprs.append(p.parse_expr())
        if kind == "const":
            if exprs is None:  # implicit repetition of the previous spec
                exprs, ty = state["prev"]
            state["prev"] = (exprs, ty)
        for i, n in enumerate(names):
            expr = exprs[i] if exprs is not None and i < len(exprs) else None
            self.decls.append(Decl(n, kind, expr, ty, self))
        if p.at(";"):
            p.next()

    def func_tokens(self, name):
        span = self.funcs.get(name)
        return self.toks[span[0]:span[1]] if span else None


class Package:
    def __init__(self, module, rel_dir):
        self.module, self.rel_dir = module, rel_dir
        self.files = []
        self.decls = {}
        self.types = set()
        self.cache = {}

    def add(self, f):
        self.files.append(f)
        for d in f.decls:
            if d.name != "_":
                self.decls[d.name] = d
        self.types |= f.types


BUILTIN_TYPES = {"string", "int", "int8", "int16", "int32", "int64", "uint", "uint8", "uint16",
                 "uint32", "uint64", "float32", "float64", "bool", "byte", "rune", "any"}


class Module:
    """The Go files of some package folders of one module checkout."""

    def __init__(self, root, dirs, module=MODULE):
        self.root, self.module = Path(root), module
        self.packages = {}
        self.read = {}  # path relative to root -> bytes, every file read
        for d in dirs:
            pkg = Package(self, d)
            folder = self.root / d
            if not folder.is_dir():
                raise GoError("%s: no such folder in the longhorn-manager source" % d)
            for path in sorted(folder.iterdir()):
                if (path.suffix != ".go" or path.name.endswith("_test.go")
                        or path.name.startswith("zz_generated")):
                    continue
                rel = path.relative_to(self.root).as_posix()
                data = path.read_bytes()
                self.read[rel] = data
                pkg.add(GoFile(path, rel, data.decode("utf-8")))
            self.packages[d] = pkg

    def package_of(self, import_path):
        if import_path.startswith(self.module + "/"):
            return self.packages.get(import_path[len(self.module) + 1:])
        return None

    # evaluation
    def value(self, pkg, name):
        d = pkg.decls.get(name)
        if d is None:
            raise Unresolved("%s.%s is not declared" % (pkg.rel_dir, name))
        if name in pkg.cache:
            v = pkg.cache[name]
            if isinstance(v, Unresolved):
                raise v
            return v
        if d.expr is None:
            err = Unresolved("%s.%s has no value in the source" % (pkg.rel_dir, name))
            pkg.cache[name] = err
            raise err
        pkg.cache[name] = Unresolved("%s.%s refers to itself" % (pkg.rel_dir, name))
        try:
            v = self.eval(d.expr, pkg, d.file)
        except Unresolved as e:
            pkg.cache[name] = e
            raise
        pkg.cache[name] = v
        return v

    def resolve_selector(self, e, file):
        """For `alias.Name`: (package, name) when alias is an imported package of the module,
        ("external", import path, name) for another module's package, else None."""
        if e[0] == "sel" and e[1][0] == "ident" and e[1][1] in file.imports:
            path = file.imports[e[1][1]]
            pkg = self.package_of(path)
            if pkg is not None:
                return (pkg, e[2])
            return ("external", path, e[2])
        return None

    def eval(self, e, pkg, file):
        kind = e[0]
        if kind == "lit":
            return e[1]
        if kind == "paren":
            return self.eval(e[1], pkg, file)
        if kind == "ident":
            if e[1] in ("true", "false"):
                return e[1] == "true"
            if e[1] == "nil":
                return None
            return self.value(pkg, e[1])
        if kind == "sel":
            target = self.resolve_selector(e, file)
            if target is None or target[0] == "external":
                raise Unresolved("cannot evaluate %s" % describe(e))
            return self.value(target[0], target[1])
        if kind == "call":
            return self.call(e, pkg, file)
        if kind == "binary":
            a, b = self.eval(e[2], pkg, file), self.eval(e[3], pkg, file)
            op = e[1]
            if op == "+":
                return a + b
            if op == "-":
                return a - b
            if op == "*":
                return a * b
            if op == "/":
                return a // b if isinstance(a, int) and isinstance(b, int) else a / b
            if op == "%":
                return a % b
            if op == "<<":
                return a << b
            if op == "|":
                return a | b
            raise Unresolved("operator %s" % op)
        if kind == "unary":
            v = self.eval(e[2], pkg, file)
            if e[1] == "-":
                return -v
            if e[1] == "+":
                return v
            if e[1] == "!":
                return not v
            raise Unresolved("operator %s" % e[1])
        if kind == "composite":
            return Composite(self, e, pkg, file)
        raise Unresolved("cannot evaluate %s" % describe(e))

    def call(self, e, pkg, file):
        fn, args = e[1], e[2]
        # Conversions: T(x) for a type of the package, a builtin type or pkg.T.
        if fn[0] == "ident" and (fn[1] in pkg.types or fn[1] in BUILTIN_TYPES) and len(args) == 1:
            v = self.eval(args[0], pkg, file)
            return convert(fn[1], v)
        if fn[0] == "typeexpr" and len(args) == 1:
            return self.eval(args[0], pkg, file)
        target = self.resolve_selector(fn, file)
        if target is not None and target[0] != "external" and target[1] in target[0].types:
            return self.eval(args[0], pkg, file)
        if target is not None and target[0] == "external":
            _, path, name = target
            values = [self.eval(a, pkg, file) for a in args]
            if path == "fmt" and name == "Sprintf":
                return sprintf(values[0], values[1:])
            if path == "strconv" and name == "Itoa":
                return str(values[0])
            if path == "strconv" and name == "FormatBool":
                return "true" if values[0] else "false"
        raise Unresolved("cannot evaluate the call %s" % describe(fn))


def convert(type_name, v):
    if type_name == "string" and isinstance(v, int) and not isinstance(v, bool):
        return chr(v)
    if type_name in ("float32", "float64") and isinstance(v, int):
        return float(v)
    if type_name.startswith(("int", "uint")) and isinstance(v, float) and v == int(v):
        return int(v)
    return v


class Composite:
    """A composite literal, evaluated element by element when asked."""

    def __init__(self, module, e, pkg, file):
        self.module, self.type, self.elems, self.pkg, self.file = module, e[1], e[2], pkg, file

    def eval(self, expr):
        return self.module.eval(expr, self.pkg, self.file)

    def fields(self):
        """Struct literal: field name -> expression (keys are field names)."""
        out = {}
        for k, v in self.elems:
            if k is None or k[0] != "ident":
                raise GoError("%s: struct literal without field names" % self.file.rel)
            out[k[1]] = v
        return out

    def items(self):
        """Map literal: (key value, value expression) in source order."""
        return [(self.eval(k), v) for k, v in self.elems]

    def values(self):
        return [self.eval(v) for _, v in self.elems]


def describe(e):
    if e[0] == "ident":
        return e[1]
    if e[0] == "sel":
        return "%s.%s" % (describe(e[1]), e[2])
    if e[0] == "lit":
        return repr(e[1])
    if e[0] == "call":
        return "%s(...)" % describe(e[1])
    return e[0]


# --- fmt -----------------------------------------------------------------------------------

def go_quote(s):
    """strconv.Quote for the strings the settings use."""
    out = ['"']
    for c in s:
        if c == '"':
            out.append('\\"')
        elif c == "\\":
            out.append("\\\\")
        elif c == "\n":
            out.append("\\n")
        elif c == "\t":
            out.append("\\t")
        elif c == "\r":
            out.append("\\r")
        elif ord(c) < 0x20 or ord(c) == 0x7f:
            out.append("\\x%02x" % ord(c))
        else:
            out.append(c)
    out.append('"')
    return "".join(out)


def go_value(v):
    """fmt's %v of a constant."""
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, float):
        if v == int(v) and abs(v) < 1e21:
            return str(int(v))
        return repr(v)
    return str(v)


def sprintf(fmt, args):
    out = []
    i = 0
    args = list(args)
    while i < len(fmt):
        c = fmt[i]
        if c != "%":
            out.append(c)
            i += 1
            continue
        verb = fmt[i + 1]
        i += 2
        if verb == "%":
            out.append("%")
            continue
        if not args:
            raise Unresolved("fmt.Sprintf: missing argument for %%%s" % verb)
        a = args.pop(0)
        if verb == "q":
            out.append(go_quote(a) if isinstance(a, str) else "'%s'" % chr(a))
        elif verb in ("v", "s", "d"):
            out.append(go_value(a))
        else:
            raise Unresolved("fmt.Sprintf verb %%%s" % verb)
    if args:
        raise Unresolved("fmt.Sprintf: extra arguments")
    return "".join(out)
