//! Built-ins shared by (nearly) every engine: the ANSI aggregates, window functions, string, math
//! and date/time basics, conditionals and the common spatial functions. Every dialect's allowed
//! tier includes this list, so only put a name here if it is side-effect free wherever it exists.

/// Side-effect-free built-ins allowed in every dialect (lower case, sorted).
#[rustfmt::skip]
pub(super) const COMMON: &[&str] = &[
    "abs", "acos", "ascii", "asin", "atan", "atan2", "avg", "bit_length", "cast", "ceil",
    "ceiling", "char_length", "character_length", "coalesce", "concat", "concat_ws", "corr", "cos",
    "cot", "count", "covar_pop", "covar_samp", "cube", "cume_dist", "current_date", "current_role",
    "current_schema", "current_time", "current_timestamp", "current_user", "degrees", "dense_rank",
    "exp", "extract", "first_value", "floor", "greatest", "grouping", "lag", "last_value", "lead",
    "least", "length", "ln", "localtime", "localtimestamp", "log", "log10", "lower", "lpad",
    "ltrim", "max", "md5", "min", "mod", "normalize", "nth_value", "ntile", "nullif",
    "octet_length", "overlay", "percent_rank", "percentile_cont", "percentile_disc", "pi",
    "position", "power", "radians", "rank", "regr_avgx", "regr_avgy", "regr_count",
    "regr_intercept", "regr_r2", "regr_slope", "regr_sxx", "regr_sxy", "regr_syy", "repeat",
    "replace", "reverse", "rollup", "round", "row", "row_number", "rpad", "rtrim", "session_user",
    "sign", "sin", "sqrt", "st_affine", "st_area", "st_asbinary", "st_asewkt", "st_asgeojson",
    "st_asmvt", "st_asmvtgeom", "st_astext", "st_azimuth", "st_boundary", "st_boundingdiagonal",
    "st_buffer", "st_centroid", "st_closestpoint", "st_clusterdbscan", "st_clusterkmeans",
    "st_collect", "st_concavehull", "st_contains", "st_convexhull", "st_coveredby", "st_covers",
    "st_crosses", "st_delaunaytriangles", "st_difference", "st_dimension", "st_disjoint",
    "st_distance", "st_distancesphere", "st_distancespheroid", "st_dump", "st_dwithin",
    "st_endpoint", "st_envelope", "st_equals", "st_expand", "st_extent", "st_exteriorring",
    "st_flipcoordinates", "st_force2d", "st_geogfromtext", "st_geohash", "st_geometryfromtext",
    "st_geometryn", "st_geometrytype", "st_geomfromewkt", "st_geomfromgeojson", "st_geomfromtext",
    "st_geomfromwkb", "st_hausdorffdistance", "st_hexagongrid", "st_interiorringn",
    "st_intersection", "st_intersects", "st_isclosed", "st_isempty", "st_isring", "st_issimple",
    "st_isvalid", "st_length", "st_lineinterpolatepoint", "st_linelocatepoint", "st_linemerge",
    "st_linesubstring", "st_m", "st_makeenvelope", "st_makeline", "st_makepoint", "st_makepolygon",
    "st_makevalid", "st_maxdistance", "st_multi", "st_node", "st_npoints", "st_numgeometries",
    "st_numinteriorrings", "st_numpoints", "st_orderingequals", "st_overlaps", "st_perimeter",
    "st_point", "st_pointn", "st_polygonize", "st_project", "st_relate", "st_reverse", "st_rotate",
    "st_scale", "st_segmentize", "st_setsrid", "st_sharedpaths", "st_simplify", "st_snaptogrid",
    "st_split", "st_squaregrid", "st_srid", "st_startpoint", "st_subdivide", "st_symdifference",
    "st_tileenvelope", "st_touches", "st_transform", "st_translate", "st_unaryunion", "st_union",
    "st_voronoipolygons", "st_within", "st_x", "st_xmax", "st_xmin", "st_y", "st_ymax", "st_ymin",
    "st_z", "stddev", "stddev_pop", "stddev_samp", "substr", "substring", "sum", "tan",
    "translate", "trim", "trunc", "upper", "var_pop", "var_samp", "variance",
];

#[cfg(test)]
mod tests {
    use crate::FunctionClass::*;
    use crate::SqlDialect::Ansi;
    use crate::functions::Catalogued::{Allowed, Denied, Unknown};
    use crate::functions::testing::verdict;

    #[test]
    fn analyst_functions_are_allowed() {
        for name in [
            "count",
            "sum",
            "row_number",
            "coalesce",
            "current_timestamp",
            "st_distance",
        ] {
            assert_eq!(verdict(Ansi, name), Allowed, "{name}");
        }
    }

    #[test]
    fn dangerous_functions_are_denied() {
        for (name, class) in [
            ("pg_sleep", Sleep),
            ("read_csv_auto", FileAccess),
            ("glob", FileAccess),
            ("merge", ExecutesSql),
        ] {
            assert_eq!(verdict(Ansi, name), Denied(class), "{name}");
        }
    }

    #[test]
    fn other_names_are_unknown() {
        for name in ["my_udf", "date_trunc", "public.upper"] {
            assert_eq!(verdict(Ansi, name), Unknown, "{name}");
        }
    }
}
