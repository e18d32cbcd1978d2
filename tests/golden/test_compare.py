"""The comparator of the golden tests (compare.py) fails when it must, so the golden test
cannot pass silently: a value beyond its tolerance, a missing or extra key, a type change."""
import unittest

from compare import DEFAULT_REL, IGNORED, Rules, compare, format_path, mask, matches, parse_path


def rules(ignore=(), tolerance=()):
    return Rules([{"path": p, "reason": "test"} for p in ignore],
                 [dict(t, reason="test") for t in tolerance])


class Paths(unittest.TestCase):
    def test_parse_and_format_round_trip(self):
        self.assertEqual(parse_path("$.rows[3].energy_pj"), ["rows", "[3]", "energy_pj"])
        self.assertEqual(format_path(["rows", "[3]", "energy_pj"]), "$.rows[3].energy_pj")
        self.assertEqual(parse_path("$"), [])
        with self.assertRaises(ValueError):
            parse_path("rows.x")
        with self.assertRaises(ValueError):
            parse_path("$.rows[x]")

    def test_wildcards(self):
        path = parse_path("$.header.timing.wall_s")
        self.assertTrue(matches(parse_path("$.**.wall_s"), path))
        self.assertTrue(matches(parse_path("$.header.*.wall_s"), path))
        self.assertTrue(matches(parse_path("$.**"), path))
        self.assertFalse(matches(parse_path("$.*.wall_s"), path))
        self.assertFalse(matches(parse_path("$.header[*].wall_s"), parse_path("$.header.t.wall_s")))
        self.assertTrue(matches(parse_path("$.rows[*].x"), parse_path("$.rows[7].x")))
        self.assertFalse(matches(parse_path("$.rows[*].x"), parse_path("$.rows.a.x")))

    def test_index_ranges_include_both_ends_and_nothing_else(self):
        pattern = parse_path("$.rows[18-23][5]")
        self.assertTrue(matches(pattern, parse_path("$.rows[18][5]")))
        self.assertTrue(matches(pattern, parse_path("$.rows[23][5]")))
        self.assertFalse(matches(pattern, parse_path("$.rows[17][5]")))
        self.assertFalse(matches(pattern, parse_path("$.rows[24][5]")))
        self.assertFalse(matches(pattern, parse_path("$.rows[20][4]")))
        self.assertFalse(matches(pattern, parse_path("$.rows.a[5]")))
        with self.assertRaises(ValueError):
            parse_path("$.rows[5-2]")


class Compare(unittest.TestCase):
    def test_equal_documents_agree(self):
        doc = {"a": [1, 2.5, "x", True, None], "b": {"c": -3e-20}}
        self.assertEqual(compare(doc, doc), [])

    def test_within_default_tolerance_passes(self):
        self.assertEqual(compare({"x": 1.0}, {"x": 1.0 + 0.5 * DEFAULT_REL}), [])
        self.assertEqual(compare({"x": 0.0}, {"x": 1e-21}), [])  # under the absolute floor
        self.assertEqual(len(compare({"x": 0.0}, {"x": 1e-18})), 1)

    def test_beyond_default_tolerance_fails_with_case_path_and_values(self):
        found = compare({"r": [{"x": 1.0}]}, {"r": [{"x": 1.0 + 3 * DEFAULT_REL}]}, case="demo")
        self.assertEqual(len(found), 1)
        self.assertIn("demo: $.r[0].x: stored 1.0, got 1.000000003", found[0])

    def test_integers_are_exact_without_a_rule(self):
        self.assertEqual(len(compare({"n": 10**12}, {"n": 10**12 + 1})), 1)

    def test_looser_tolerance_applies_only_where_named(self):
        loose = rules(tolerance=[{"path": "$.t", "rel": 1e-3}])
        self.assertEqual(compare({"t": 1.0, "u": 1.0}, {"t": 1.0005, "u": 1.0}, loose), [])
        self.assertEqual(len(compare({"t": 1.0}, {"t": 1.002}, loose)), 1)
        self.assertEqual(len(compare({"u": 1.0}, {"u": 1.0005}, loose)), 1)

    def test_missing_and_extra_keys_fail(self):
        found = compare({"a": 1, "b": 2}, {"a": 1, "c": 3}, case="k")
        self.assertEqual(sorted(found), ["k: $.b: missing key (stored 2)",
                                         "k: $.c: extra key (got 3)"])

    def test_ignored_field_is_ignored_even_when_missing(self):
        ignore = rules(ignore=["$.**.wall_s"])
        self.assertEqual(compare({"h": {"wall_s": 1.0}, "v": 1}, {"h": {"wall_s": 9.0}, "v": 1},
                                 ignore), [])
        self.assertEqual(compare({"h": {"wall_s": 1.0}}, {"h": {}}, ignore), [])
        self.assertEqual(len(compare({"h": {"wall_s": 1.0}, "v": 1}, {"h": {"wall_s": 1.0},
                                                                     "v": 2}, ignore)), 1)

    def test_mask_replaces_only_ignored_values(self):
        doc = {"p": [{"seconds": 0.3, "v": 1}], "seconds": 2}
        masked = mask(doc, rules(ignore=["$.p[*].seconds"]))
        self.assertEqual(masked, {"p": [{"seconds": IGNORED, "v": 1}], "seconds": 2})
        self.assertEqual(compare(masked, doc, rules(ignore=["$.p[*].seconds"])), [])

    def test_type_length_string_and_bool_changes_fail(self):
        self.assertEqual(len(compare({"a": 1}, {"a": "1"})), 1)
        self.assertEqual(len(compare({"a": [1, 2]}, {"a": [1]})), 1)
        self.assertEqual(len(compare({"a": "x"}, {"a": "y"})), 1)
        self.assertEqual(len(compare({"a": True}, {"a": 1})), 1)
        self.assertEqual(len(compare({"a": None}, {"a": 0})), 1)
        self.assertEqual(len(compare({"a": float("nan")}, {"a": 1.0})), 1)
        self.assertEqual(compare({"a": float("nan")}, {"a": float("nan")}), [])


if __name__ == "__main__":
    unittest.main()
