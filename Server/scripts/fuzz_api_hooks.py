"""schemathesis hooks for Server/scripts/fuzz-api.sh (loaded through SCHEMATHESIS_HOOKS).

- The fix bodies' media types (NDJSON, CSV) are text: sent as schemathesis sends text/plain.
- On CPython 3.11, hypothesis's description of a filter's lambda (a repr, for messages only)
  sometimes fails with "SystemError: AST constructor recursion depth mismatch" while it parses
  schemathesis's largest module (a CPython 3.11 bug; seen once in six runs here, on
  PUT /v1/fences, as a schemathesis "Runtime Error" that fails the run). The script prefers a
  newer Python; here such a failure falls back to a plain description.
"""

import schemathesis

schemathesis.serializer.alias(["application/x-ndjson", "text/csv"], "text/plain")

try:
    from hypothesis.internal import lambda_sources
except ImportError:  # another hypothesis: nothing to work around
    lambda_sources = None

if lambda_sources is not None and hasattr(lambda_sources, "lambda_description"):
    _describe = lambda_sources.lambda_description

    def _lambda_description(f):
        try:
            return _describe(f)
        except SystemError:
            return "lambda ...: <unknown>"

    lambda_sources.lambda_description = _lambda_description


# POST /v1/fixes: the document can only say "a string" of NDJSON or CSV, so schemathesis alone
# would send text that is rarely a fix. Two thirds of the bodies are built here instead: lines of
# fix objects (devices from a small set, so fixes of one device meet; times and numbers at
# and beyond their limits; fields missing or of the wrong type), or CSV with a header.
from hypothesis import strategies as st
import json

_DEVICES = st.sampled_from(["phone-a", "phone-b", "bus-1", "bus-2"]) | st.text(max_size=12)
_TIMES = st.one_of(
    st.integers(min_value=1_699_999_000_000, max_value=1_700_100_000_000),
    st.integers(min_value=-(10**18) + 1, max_value=10**18 - 1),
    st.integers(),
    st.sampled_from(["2023-11-14T22:13:20Z", "2023-11-14T22:13:20.5+01:00", "9999-12-31T23:59:59Z", "", "x"]),
)
_LATS = st.one_of(st.floats(min_value=30.1, max_value=30.4), st.floats(allow_nan=False, allow_infinity=False), st.integers())
_LNGS = st.one_of(st.floats(min_value=-97.9, max_value=-97.6), st.floats(allow_nan=False, allow_infinity=False), st.integers())
_ACCURACIES = st.one_of(st.floats(min_value=0, max_value=2000), st.floats(allow_nan=False, allow_infinity=False), st.none())
_LEVELS = st.one_of(st.integers(min_value=-3, max_value=5), st.integers(), st.none())
_ANY = st.one_of(st.none(), st.booleans(), st.integers(), st.floats(allow_nan=False, allow_infinity=False), st.text(max_size=8))


@st.composite
def _fix_object(draw):
    fields = {
        "deviceId": draw(_DEVICES),
        "timestamp": draw(_TIMES),
        "lat": draw(_LATS),
        "lng": draw(_LNGS),
        "accuracy": draw(_ACCURACIES),
        "level": draw(_LEVELS),
    }
    out = {}
    for key, value in fields.items():
        roll = draw(st.integers(min_value=0, max_value=19))
        if roll == 0:
            continue  # missing
        if roll == 1:
            value = draw(_ANY)  # of any type
        if value is None and key in ("accuracy", "level"):
            continue
        out[key] = value
    return out


def _csv_row(fix):
    return ",".join(str(fix.get(key, "")) for key in ("deviceId", "timestamp", "lat", "lng", "accuracy", "level"))


_NDJSON = st.lists(_fix_object(), max_size=40).map(lambda fixes: "".join(json.dumps(f) + "\n" for f in fixes))
_CSV = st.lists(_fix_object(), max_size=40).map(
    lambda fixes: "device_id,timestamp,lat,lon,accuracy,level\n" + "".join(_csv_row(f) + "\n" for f in fixes)
)


@schemathesis.hook
def before_generate_body(context, strategy):
    operation = context.operation
    if operation is not None and operation.method.upper() == "POST" and operation.path == "/v1/fixes":
        return st.one_of(strategy, _NDJSON, _CSV)
    return strategy
