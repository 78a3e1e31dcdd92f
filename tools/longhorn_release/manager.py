"""What longhorn-manager defines about its settings at one tag, read from its Go source.

Read (paths relative to the longhorn-manager checkout given with --manager):

  version                                the release the checkout is at (`v1.12.1`)
  types/*.go                             settingDefinitions: every setting and its definition
                                         literal (package types)
  k8s/pkg/apis/longhorn/v1beta2/*.go     constants the definitions use (data engine names,
  meta/*.go                              replica auto-balance values, ...)
  controller/setting_controller.go       the danger-zone lists: settings applied to Longhorn's
                                         components only once volumes are detached

`_test.go` and `zz_generated*` files are not read.

Per setting (the key of settingDefinitions, evaluated): `type` (the definition's Type;
"string" when it has none), `default` (Default evaluated; null when the definition has no
Default or its value is set at build time, e.g. meta.Version), `choices` (each choice as fmt's
%v prints it), `range` (`min`/`max` of ValueIntRange or ValueFloatRange, as strings), `engines`
(when DataEngineSpecific: the keys of the JSON default), `data_engine_specific`, `category` (the
category constant's name without `SettingCategory`), `required`.
"""

import json
import re

from . import gosrc
from .common import ToolError

PACKAGES = ("types", "meta", "k8s/pkg/apis/longhorn/v1beta2")
CONTROLLER = "controller/setting_controller.go"
DANGER_LIST = re.compile(r"danger\w*")


def read_version(root):
    path = root / "version"
    if not path.is_file():
        raise ToolError("%s is not a longhorn-manager checkout: it has no `version` file" % root)
    return path.read_text(encoding="utf-8").strip()


def definition_fields(module, expr, pkg, file):
    """The field expressions of a setting definition: an identifier naming a package
    variable that holds a SettingDefinition literal, or the literal itself."""
    seen = 0
    while expr[0] == "ident":
        d = pkg.decls.get(expr[1])
        if d is None or d.expr is None:
            raise ToolError("longhorn-manager %s: %s is not a SettingDefinition literal"
                            % (file.rel, expr[1]))
        expr, file = d.expr, d.file
        seen += 1
        if seen > 10:
            raise ToolError("longhorn-manager: definition chain too long at %s" % expr[1])
    if expr[0] != "composite":
        raise ToolError("longhorn-manager %s: a setting definition is not a literal" % file.rel)
    return gosrc.Composite(module, expr, pkg, file)


def category_name(expr):
    if expr[0] == "ident":
        name = expr[1]
    elif expr[0] == "sel":
        name = expr[2]
    else:
        raise ToolError("longhorn-manager: a Category that is not a constant: %s"
                        % gosrc.describe(expr))
    return name[len("SettingCategory"):] if name.startswith("SettingCategory") else name


def read_settings(root):
    """(settings, module): settings by name, in name order."""
    try:
        module = gosrc.Module(root, PACKAGES)
    except gosrc.GoError as err:
        raise ToolError("longhorn-manager source: %s" % err)
    types = module.packages["types"]
    try:
        table = module.value(types, "settingDefinitions")
    except gosrc.Unresolved as err:
        raise ToolError("longhorn-manager types: settingDefinitions: %s" % err)
    if not isinstance(table, gosrc.Composite):
        raise ToolError("longhorn-manager types: settingDefinitions is not a map literal")
    settings = {}
    for name, expr in table.items():
        if name in settings:
            raise ToolError("longhorn-manager: setting %s is defined twice" % name)
        lit = definition_fields(module, expr, types, table.file)
        fields = lit.fields()

        def ev(field, default=None):
            if field not in fields:
                return default
            return lit.eval(fields[field])

        s = {"type": ev("Type", "string")}
        try:
            s["default"] = ev("Default")
        except gosrc.Unresolved:
            s["default"] = None
        if s["default"] is not None and not isinstance(s["default"], str):
            raise ToolError("longhorn-manager: the default of %s is not a string" % name)
        choices = ev("Choices")
        s["choices"] = [gosrc.go_value(c) for c in choices.values()] if choices else None
        rng = None
        for field in ("ValueIntRange", "ValueFloatRange"):
            table_ = ev(field)
            if table_ is not None:
                bounds = {}
                for k, vexpr in table_.items():
                    bound = {"minimum": "min", "maximum": "max"}.get(k)
                    if bound is None:
                        raise ToolError("longhorn-manager: %s %s has a key %r" % (name, field, k))
                    bounds[bound] = gosrc.go_value(lit.eval(vexpr))
                if bounds:
                    rng = {b: bounds[b] for b in ("min", "max") if b in bounds}
        s["range"] = rng
        s["data_engine_specific"] = bool(ev("DataEngineSpecific", False))
        if s["data_engine_specific"]:
            try:
                engines = json.loads(s["default"])
            except (TypeError, ValueError):
                raise ToolError("longhorn-manager: %s is data-engine-specific but its default %r "
                                "is not a JSON object" % (name, s["default"]))
            s["engines"] = sorted(engines)
        s["category"] = category_name(fields["Category"]) if "Category" in fields else None
        s["required"] = bool(ev("Required", False))
        settings[name] = s
    return dict(sorted(settings.items())), module


def danger_lists(root, module):
    """The danger-zone lists of controller/setting_controller.go: list variable -> setting
    names, in source order, and the file's bytes. A list is a `name := []types.SettingName{...}`
    (or `var name = ...`) whose name starts with `danger`."""
    path = root / CONTROLLER
    if not path.is_file():
        raise ToolError("longhorn-manager source: %s is missing" % CONTROLLER)
    data = path.read_bytes()
    toks = gosrc.tokenize(data.decode("utf-8"), CONTROLLER)
    types = module.packages["types"]
    lists = {}
    i = 0
    while i < len(toks) - 8:
        t = toks[i]
        if (t.kind == "ident" and DANGER_LIST.fullmatch(t.text)
                and toks[i + 1].text in (":=", "=") and toks[i + 2].text == "["
                and toks[i + 3].text == "]" and [x.text for x in toks[i + 4:i + 8]]
                == ["types", ".", "SettingName", "{"]):
            j = i + 8
            names = []
            while toks[j].text != "}":
                if toks[j].text == "types" and toks[j + 1].text == "." and toks[j + 2].kind == "ident":
                    try:
                        names.append(module.value(types, toks[j + 2].text))
                    except gosrc.Unresolved as err:
                        raise ToolError("longhorn-manager %s:%d: %s" % (CONTROLLER, toks[j].line, err))
                    j += 3
                elif toks[j].text in (",", ";"):
                    j += 1
                else:
                    raise ToolError("longhorn-manager %s:%d: unexpected %r in %s"
                                    % (CONTROLLER, toks[j].line, toks[j].text, t.text))
            if t.text in lists and lists[t.text] != names:
                raise ToolError("longhorn-manager %s: two different lists named %s" % (CONTROLLER, t.text))
            lists[t.text] = names
            i = j
        i += 1
    return lists, data
