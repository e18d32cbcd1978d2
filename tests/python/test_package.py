"""The pure-Python layer of the package (python/lightsim/): every public function has a real
inspect.signature (native ones parsed from pybind11's declaration, operations built from the
registry's request fields), help() shows it, and the generated stubs list them all
(docs/python.md). Runs against the build tree (cheap); tests/install/ tests the pip install.
"""
import ast
import inspect
import os
import pydoc
import unittest
from pathlib import Path

import numpy as np

import lightsim
from lightsim import _signatures

P = inspect.Parameter


class SignatureTest(unittest.TestCase):
    def test_every_public_function_has_a_signature(self):
        for name in lightsim.NATIVE_FUNCTIONS + lightsim.OPERATIONS:
            with self.subTest(function=name):
                function = getattr(lightsim, name)
                self.assertIn(name, lightsim.__all__)
                self.assertTrue(hasattr(function, "__signature__"), name)
                inspect.signature(function)
                self.assertTrue(inspect.getdoc(function))
                self.assertEqual(function.__module__, "lightsim")

    def test_native_signatures_are_pybind11_declarations(self):
        sig = inspect.signature(lightsim.score)
        self.assertEqual(list(sig.parameters)[:3], ["scorer", "keys", "queries"])
        self.assertEqual(sig.parameters["scorer"].annotation, str)
        self.assertEqual(sig.parameters["block_tokens"].kind, P.KEYWORD_ONLY)
        self.assertEqual(sig.parameters["block_tokens"].default, 128)
        sig = inspect.signature(lightsim.evaluate_kv)
        self.assertIs(sig.parameters["ks"].default, None)  # 8, 16, 32, clipped to the blocks
        sig = inspect.signature(lightsim.run_study)
        self.assertEqual(sig.parameters["size"].default, "default")
        self.assertIs(sig.parameters["config"].default, None)
        self.assertEqual(inspect.signature(lightsim.run).parameters["kwargs"].kind,
                         P.VAR_KEYWORD)
        self.assertFalse(inspect.getdoc(lightsim.score).startswith("score("))

    def test_wrappers_call_through_with_the_declared_arguments(self):
        rng = np.random.default_rng(0)
        keys = rng.standard_normal((512, 16), dtype=np.float32)
        queries = rng.standard_normal((2, 16), dtype=np.float32)
        a = lightsim.score("exact", keys, queries, block_tokens=64)
        b = lightsim._core.score("exact", keys, queries, block_tokens=64)
        np.testing.assert_array_equal(a, b)
        with self.assertRaises(TypeError):
            lightsim.score("exact", keys, queries, no_such_keyword=1)

    def test_operation_signatures_follow_the_request_fields(self):
        for op in lightsim.operations():
            with self.subTest(operation=op["name"]):
                sig = inspect.signature(getattr(lightsim, op["name"]))
                names = [f["name"] for f in op["fields"]]
                fields = op["positional"] + [n for n in names if n not in op["positional"]]
                reserved = [r[0] for r in _signatures.RESERVED]
                self.assertEqual(list(sig.parameters), fields + reserved)
        sig = inspect.signature(lightsim.prefill_plan)
        self.assertEqual(str(sig.parameters["scenario"]), "scenario: str")
        self.assertEqual(sig.parameters["gpus"].annotation, list[int] | None)
        with self.assertRaises(TypeError):
            lightsim.prefill_plan("seed_8k", "extra positional")
        text = pydoc.render_doc(lightsim.prefill_plan, renderer=pydoc.plaintext)
        self.assertIn("prefill_plan(scenario: str, *, model: str | None = None, "
                      "fabric: str | None = None", text)
        self.assertIn("`lightsim prefill plan`", text)

    def test_field_types_become_annotations(self):
        self.assertEqual(_signatures.field_annotation("list of integer"), "list[int]")
        self.assertEqual(_signatures.field_annotation("string (optional)"), "str")
        self.assertEqual(_signatures.field_annotation("map of name to string"), "dict[str, str]")
        self.assertEqual(_signatures.field_annotation("time"), "str")  # "10 s"
        self.assertEqual(_signatures.field_annotation("boolean"), "bool")

    def test_signature_lines_parse(self):
        sig = _signatures.parse_signature(
            "f(a: int, b: object = [1, 2], *, c: Optional[str] = None, d=<lambda>) -> List[str]")
        self.assertEqual(list(sig.parameters), ["a", "b", "c", "d"])
        self.assertIs(sig.parameters["b"].annotation, P.empty)  # object: any value
        self.assertEqual(sig.parameters["b"].default, [1, 2])
        self.assertEqual(sig.parameters["c"].kind, P.KEYWORD_ONLY)
        self.assertEqual(sig.parameters["d"].default, "<lambda>")  # no literal: its text
        sig = _signatures.parse_signature("g(x: object = <a <b> c>, y: int = 1) -> None")
        self.assertEqual(sig.parameters["x"].default, "<a <b> c>")
        self.assertEqual(sig.parameters["y"].default, 1)
        self.assertIsNone(_signatures.parse_signature("not a signature line"))


class StubsTest(unittest.TestCase):
    def test_the_built_stubs_list_every_function_and_parse(self):
        stubs = Path(lightsim.__file__).with_name("__init__.pyi")
        tree = ast.parse(stubs.read_text())
        functions = {node.name: node for node in tree.body if isinstance(node, ast.FunctionDef)}
        self.assertEqual(set(functions), set(lightsim.NATIVE_FUNCTIONS + lightsim.OPERATIONS))
        classes = {node.name for node in tree.body if isinstance(node, ast.ClassDef)}
        self.assertIn("InputError", classes)
        plan = functions["prefill_plan"]
        self.assertEqual([a.arg for a in plan.args.args], ["scenario"])
        self.assertEqual(ast.unparse(plan.args.args[0].annotation), "str")

    def test_stubs_render_the_live_module(self):
        from lightsim import _stubs
        stubs = Path(lightsim.__file__).with_name("__init__.pyi")
        self.assertEqual(stubs.read_text(), _stubs.render(lightsim))


class DataFolderTest(unittest.TestCase):
    def test_the_build_tree_reads_the_source_trees_presets(self):
        source = Path(os.environ.get("LIGHTSIM_SOURCE_DIR", Path(__file__).resolve().parents[2]))
        if os.environ.get("LIGHTSIM_DATA"):
            self.skipTest("LIGHTSIM_DATA is set")
        self.assertEqual(Path(lightsim.data_dir()), source.resolve())


if __name__ == "__main__":
    unittest.main()
