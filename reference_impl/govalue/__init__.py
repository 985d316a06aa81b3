"""Go's values and runtime, as Kubernetes' Go code sees JSON: the bottom layer of the reference.

Each module is named for the Go package it stands in for:

- :mod:`.decoded`: JSON decoded into ``interface{}`` (int64 or float64 numbers), its Go types,
  ``==``, ``reflect.DeepEqual`` and a deep copy (``runtime.DeepCopyJSONValue``);
- :mod:`.fmt`: ``%v``, ``%s`` and ``%#v`` of such values;
- :mod:`.strconv`: ``strconv.Quote``, ``FormatFloat``, ``ParseInt`` and ``Atoi``;
- :mod:`.encoding_json`: JSON text as ``encoding/json`` writes it, and values as it writes them back;
- :mod:`.utiljson`: JSON as apimachinery's ``util/json`` decodes it (int64 or float64), the model
  objects are patched in;
- :mod:`.goyaml`: YAML as sigs.k8s.io/yaml (go-yaml v2) writes and reads it;
- :mod:`.sort`: ``sort.Sort`` and ``sort.SliceStable``, step for step;
- :mod:`.runtime`: the capacities ``append`` and the JSON decoder give slices;
- :mod:`.time`: ``time.Parse`` with the RFC 3339 layout (``metav1.Time``), its errors;
- :mod:`.gotypes`: a built-in object's round trip through its Go type (converter.go), and the
  decoded struct a defaulter works on.

Nothing here imports from the packages above it (strategic, ssa, defaults, …).
"""
