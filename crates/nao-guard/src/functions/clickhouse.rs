//! ClickHouse built-ins. Names are stored lower case and matched ASCII case-insensitively
//! (`toStartOfMonth` is `tostartofmonth`); quoting does not change how ClickHouse resolves a
//! function, so quoted names match too. Aggregates are listed apart so that combinator forms
//! (`countIf`, `sumIf`, `uniqMerge`, `quantilesState`) are recognised without listing each one.
//!
//! Denied (see `denied.rs`): every table function that reads files or other servers (`file`,
//! `url`, `remote`, `s3`, `mysql`, `postgresql`, `hdfs*`, `iceberg*`, `executable`, `cluster` …)
//! and `sleep`/`sleepEachRow`. `dictionary()`/`dictGet*` read server-configured dictionaries,
//! `getSetting` reads a setting and `throwIf` only fails the query: allowed.

use crate::FunctionClass::{self, ExecutesSql, Sleep};

/// Denied in ClickHouse (and the generic dialects) only: `merge` and `joinGet` read tables named
/// in strings, which the guard cannot see; `loop` repeats a table forever. Trino's `merge` and
/// BigQuery's `HLL_COUNT.MERGE` are harmless aggregates.
#[rustfmt::skip]
pub(super) const DENIED: &[(&str, FunctionClass)] = &[
    ("joinget", ExecutesSql), ("joingetornull", ExecutesSql), ("loop", Sleep),
    ("merge", ExecutesSql),
];

/// Combinators ClickHouse appends to an aggregate's name (`sumIf`, `uniqExactState`, `avgMerge`),
/// stripped (up to three deep) before looking the aggregate up (lower case, sorted).
#[rustfmt::skip]
pub(super) const COMBINATORS: &[&str] = &[
    "argmax", "argmin", "array", "distinct", "foreach", "if", "map", "merge", "mergestate",
    "ordefault", "ornull", "resample", "simplestate", "state",
];

/// Side-effect-free ClickHouse scalar and table functions beyond [`super::common::COMMON`]
/// (lower case, sorted).
#[rustfmt::skip]
pub(super) const CLICKHOUSE: &[&str] = &[
    "accuratecast", "accuratecastornull", "adddays", "addhours", "addminutes", "addmonths",
    "addquarters", "addseconds", "addweeks", "addyears", "age", "alphatokens", "array", "arrayall",
    "arrayavg", "arraycompact", "arrayconcat", "arraycount", "arraycumsum", "arraydifference",
    "arraydistinct", "arrayelement", "arrayenumerate", "arrayenumerateuniq", "arrayexists",
    "arrayfill", "arrayfilter", "arrayfirst", "arrayfirstindex", "arrayflatten", "arrayfold",
    "arrayintersect", "arrayjoin", "arraylast", "arraymap", "arraymax", "arraymin",
    "arraypartialsort", "arraypopback", "arraypopfront", "arrayproduct", "arraypushback",
    "arraypushfront", "arrayrandomsample", "arrayreduce", "arrayresize", "arrayreverse",
    "arrayreversesort", "arrayrotateleft", "arrayrotateright", "arrayshuffle", "arrayslice",
    "arraysort", "arraysplit", "arraystringconcat", "arraysum", "arrayuniq", "arrayzip",
    "assumenotnull", "bar", "base64decode", "base64encode", "bin", "bitand", "bitcount",
    "bitmapand", "bitmapandnot", "bitmapbuild", "bitmapcardinality", "bitmapcontains",
    "bitmaphasall", "bitmaphasany", "bitmapor", "bitmaptoarray", "bitmapxor", "bitnot", "bitor",
    "bitshiftleft", "bitshiftright", "bittest", "bitxor", "blocknumber", "blocksize", "cbrt",
    "char", "cityhash64", "concatassumeinjective", "concatwithseparator", "countequal", "crc32",
    "currentdatabase", "currentuser", "cutquerystring", "cuttofirstsignificantsubdomain",
    "cuturlparameter", "cutwww", "dameraulevenshteindistance", "database", "date_add", "date_diff",
    "date_sub", "date_trunc", "dateadd", "datediff", "datename", "datesub", "datetrunc", "day",
    "dayofmonth", "dayofweek", "dayofyear", "decodeurlcomponent", "defaultvalueofargumenttype",
    "defaultvalueoftypename", "dictget", "dictgetchildren", "dictgetdate", "dictgetdatetime",
    "dictgetfloat64", "dictgethierarchy", "dictgetint64", "dictgetordefault", "dictgetornull",
    "dictgetstring", "dictgetuint64", "dicthas", "dictionary", "dictisin", "divide", "domain",
    "domainwithoutwww", "e", "editdistance", "empty", "encodeurlcomponent", "endswith",
    "endswithutf8", "exp10", "exp2", "extractall", "extractallgroups",
    "extractallgroupshorizontal", "extractallgroupsvertical", "extracturlparameter",
    "extracturlparameters", "factorial", "farmfingerprint64", "farmhash64", "finalizeaggregation",
    "firstsignificantsubdomain", "format", "formatdatetime", "formatdatetimeinjodasyntax",
    "formatreadabledecimalsize", "formatreadablequantity", "formatreadablesize",
    "formatreadabletimedelta", "fragment", "fromunixtimestamp", "fromunixtimestamp64micro",
    "fromunixtimestamp64milli", "fromunixtimestamp64nano", "gcd", "generate_series",
    "generaterandom", "generateuuidv4", "generateuuidv7", "geodistance", "geohashdecode",
    "geohashencode", "getsetting", "greatcircledistance", "halfmd5", "has", "hasall", "hasany",
    "hassubstr", "hastoken", "hex", "hostname", "hour", "hypot", "if", "ifnull", "ignore", "ilike",
    "indexof", "initcap", "initializeaggregation", "intdiv", "intdivorzero", "ipv4cidrtorange",
    "ipv4numtostring", "ipv4stringtonum", "ipv6numtostring", "ipv6stringtonum", "isfinite",
    "isinfinite", "isipv4string", "isipv6string", "isnan", "isnotnull", "isnull", "isvalidjson",
    "jarosimilarity", "jarowinklersimilarity", "javahash", "json_exists", "json_query",
    "json_value", "jsonextract", "jsonextractarrayraw", "jsonextractbool", "jsonextractfloat",
    "jsonextractint", "jsonextractkeys", "jsonextractkeysandvalues", "jsonextractraw",
    "jsonextractstring", "jsonextractuint", "jsonhas", "jsonlength", "jsontype", "laginframe",
    "lcase", "lcm", "leadinframe", "left", "leftpad", "leftutf8", "lengthutf8",
    "levenshteindistance", "like", "locate", "log1p", "log2", "lowerutf8", "makedate",
    "makedate32", "makedatetime", "makedatetime64", "map", "mapcontains", "mapfromarrays",
    "mapkeys", "mapvalues", "match", "materialize", "mid", "minus", "minute", "modulo",
    "moduloorzero", "month", "monthname", "multiif", "multimatchallindices", "multimatchany",
    "multiply", "multisearchany", "multisearchfirstindex", "multisearchfirstposition",
    "murmurhash2_32", "murmurhash2_64", "murmurhash3_128", "murmurhash3_32", "murmurhash3_64",
    "negate", "neighbor", "netloc", "ngramdistance", "ngrams", "ngramsearch", "notempty",
    "notilike", "notlike", "now", "now64", "nowinblock", "numbers", "numbers_mt", "parsedatetime",
    "parsedatetime64besteffort", "parsedatetimebesteffort", "parsedatetimebesteffortornull",
    "parsedatetimebesteffortorzero", "parsedatetimeornull", "parsedatetimeorzero", "path",
    "pathfull", "plus", "pointinpolygon", "port", "positioncaseinsensitive",
    "positioncaseinsensitiveutf8", "positionutf8", "positivemodulo", "pow", "protocol", "quarter",
    "querystring", "rand", "rand64", "randcanonical", "randconstant", "randomfixedstring",
    "randomprintableascii", "randomstring", "range", "regexpquotemeta", "reinterpretasint64",
    "reinterpretasstring", "replaceall", "replaceone", "replaceregexpall", "replaceregexpone",
    "reverseutf8", "right", "rightpad", "rightutf8", "roundage", "roundbankers", "rounddown",
    "roundduration", "roundtoexp2", "rownumberinallblocks", "rownumberinblock",
    "runningdifference", "second", "servertimezone", "sha1", "sha224", "sha256", "sha512",
    "simplejsonextractstring", "siphash128", "siphash64", "soundex", "space", "splitbychar",
    "splitbynonalpha", "splitbyregexp", "splitbystring", "splitbywhitespace", "startswith",
    "startswithutf8", "stringjaccardindex", "substringutf8", "subtractdays", "subtracthours",
    "subtractminutes", "subtractmonths", "subtractquarters", "subtractseconds", "subtractweeks",
    "subtractyears", "throwif", "timeslot", "timeslots", "timezone", "timezoneof",
    "timezoneoffset", "tocolumntypename", "todate", "todate32", "todateornull", "todateorzero",
    "todatetime", "todatetime64", "todatetimeornull", "todatetimeorzero", "today", "todayofmonth",
    "todayofweek", "todayofyear", "todecimal128", "todecimal256", "todecimal32", "todecimal64",
    "todecimal64ornull", "todecimalstring", "tofixedstring", "tofloat32", "tofloat64",
    "tofloat64ornull", "tofloat64orzero", "tohour", "toint128", "toint16", "toint256", "toint32",
    "toint32ornull", "toint32orzero", "toint64", "toint64ornull", "toint64orzero", "toint8",
    "tointervalday", "tointervalhour", "tointervalminute", "tointervalmonth", "tointervalquarter",
    "tointervalsecond", "tointervalweek", "tointervalyear", "toipv4", "toipv4ornull", "toipv6",
    "toisoweek", "toisoyear", "tojsonstring", "tokens", "tolastdayofmonth", "tolastdayofweek",
    "tolowcardinality", "tominute", "tomonday", "tomonth", "tonullable", "topleveldomain",
    "toquarter", "torelativedaynum", "torelativehournum", "torelativeminutenum",
    "torelativemonthnum", "torelativesecondnum", "torelativeweeknum", "torelativeyearnum",
    "tosecond", "tostartofday", "tostartoffifteenminutes", "tostartoffiveminutes", "tostartofhour",
    "tostartofinterval", "tostartofisoyear", "tostartofminute", "tostartofmonth",
    "tostartofquarter", "tostartofsecond", "tostartoftenminutes", "tostartofweek", "tostartofyear",
    "tostring", "tostringcuttozero", "totime", "totimezone", "totypename", "touint128", "touint16",
    "touint256", "touint32", "touint64", "touint64ornull", "touint64orzero", "touint8",
    "tounixtimestamp", "tounixtimestamp64micro", "tounixtimestamp64milli", "tounixtimestamp64nano",
    "touuid", "toweek", "toyear", "toyearweek", "toyyyymm", "toyyyymmdd", "toyyyymmddhhmmss",
    "trimboth", "trimleft", "trimright", "truncate", "trybase64decode", "tuple", "tupleelement",
    "ucase", "unbin", "unhex", "untuple", "upperutf8", "uptime", "user", "values", "version",
    "visitparamextractstring", "week", "width_bucket", "widthbucket", "xxhash32", "xxhash64",
    "year", "yesterday", "zeros", "zeros_mt",
];

/// ClickHouse aggregate functions, the bases that [`COMBINATORS`] extend (lower case, sorted).
#[rustfmt::skip]
pub(super) const AGGREGATES: &[&str] = &[
    "any", "any_value", "anyheavy", "anylast", "anyvalue", "approx_top_k", "argmax", "argmin",
    "avg", "avgweighted", "boundingratio", "categoricalinformationvalue", "contingency", "corr",
    "count", "covarpop", "covarsamp", "cramersv", "deltasum", "deltasumtimestamp", "entropy",
    "exponentialmovingaverage", "first_value", "grouparray", "grouparrayinsertat",
    "grouparraylast", "grouparraymovingavg", "grouparraymovingsum", "grouparraysample",
    "grouparraysorted", "groupbitand", "groupbitmap", "groupbitmapand", "groupbitmapor",
    "groupbitor", "groupbitxor", "groupconcat", "groupuniqarray", "histogram", "kurtpop",
    "kurtsamp", "last_value", "mannwhitneyutest", "max", "maxintersections", "maxmap", "median",
    "min", "minmap", "quantile", "quantilebfloat16", "quantileddsketch", "quantiledeterministic",
    "quantileexact", "quantileexacthigh", "quantileexactlow", "quantileexactweighted",
    "quantilegk", "quantileinterpolatedweighted", "quantiles", "quantilesexact",
    "quantilestdigest", "quantilestiming", "quantiletdigest", "quantiletiming", "rankcorr",
    "retention", "sequencecount", "sequencematch", "simplelinearregression", "skewpop", "skewsamp",
    "sparkbar", "stddevpop", "stddevpopstable", "stddevsamp", "stddevsampstable", "studentttest",
    "sum", "sumcount", "sumkahan", "summap", "sumwithoverflow", "theilsu", "topk", "topkweighted",
    "uniq", "uniqcombined", "uniqcombined64", "uniqexact", "uniqhll12", "uniqtheta", "uniqupto",
    "varpop", "varpopstable", "varsamp", "varsampstable", "welchttest", "windowfunnel",
];

#[cfg(test)]
mod tests {
    use crate::FunctionClass::*;
    use crate::SqlDialect::ClickHouse;
    use crate::functions::Catalogued::{Allowed, Denied, Unknown};
    use crate::functions::testing::verdict;

    #[test]
    fn analyst_functions_are_allowed() {
        for name in [
            "toDate",
            "toStartOfMonth",
            "uniq",
            "uniqExact",
            "groupArray",
            "countIf",
            "sumIf",
            "uniqExactIf",
            "avgMergeState",
            "arrayJoin",
            "toString",
            "formatDateTime",
            "numbers",
            "dictGet",
            "throwIf",
            "getSetting",
            "\"toDate\"",
        ] {
            assert_eq!(verdict(ClickHouse, name), Allowed, "{name}");
        }
    }

    #[test]
    fn dangerous_functions_are_denied() {
        for (name, class) in [
            ("file", FileAccess),
            ("url", Network),
            ("urlCluster", Network),
            ("remoteSecure", Network),
            ("s3Cluster", Network),
            ("azureBlobStorageCluster", Network),
            ("hdfsCluster", FileAccess),
            ("postgresql", Network),
            ("executable", ExecutesSql),
            ("input", SideEffect),
            ("clusterAllReplicas", Network),
            ("deltaLake", FileAccess),
            ("icebergS3", FileAccess),
            ("sleepEachRow", Sleep),
            ("merge", ExecutesSql),
            ("joinGet", ExecutesSql),
        ] {
            assert_eq!(verdict(ClickHouse, name), Denied(class), "{name}");
        }
    }

    #[test]
    fn other_names_are_unknown() {
        for name in ["fileIf", "toDateIf", "my_udf"] {
            assert_eq!(verdict(ClickHouse, name), Unknown, "{name}");
        }
    }
}
