"""scripts/export_kv.py on a tiny randomly initialized Llama; skipped without transformers."""
import importlib.util
import subprocess
import sys
import unittest

from clitest import CliTest, SOURCE, run

HAVE_HF = all(importlib.util.find_spec(m) for m in ("torch", "transformers", "numpy"))


@unittest.skipUnless(HAVE_HF, "torch/transformers not importable")
class ExportKv(CliTest):
    def test_tiny_llama_round_trip(self):
        import torch
        from transformers import LlamaConfig, LlamaForCausalLM, PreTrainedTokenizerFast
        from tokenizers import Tokenizer, models, pre_tokenizers

        torch.manual_seed(0)
        cfg = LlamaConfig(vocab_size=64, hidden_size=64, intermediate_size=128,
                          num_hidden_layers=2, num_attention_heads=4, num_key_value_heads=2,
                          max_position_embeddings=512, rope_theta=10000.0)
        model_dir = self.tmp / "tiny"
        LlamaForCausalLM(cfg).save_pretrained(model_dir)
        vocab = {f"w{i}": i for i in range(64)}
        t = Tokenizer(models.WordLevel(vocab, unk_token="w0"))
        t.pre_tokenizer = pre_tokenizers.Whitespace()
        PreTrainedTokenizerFast(tokenizer_object=t, unk_token="w0").save_pretrained(model_dir)
        out = self.tmp / "cache"
        proc = subprocess.run([sys.executable, str(SOURCE / "scripts" / "export_kv.py"),
                               "--model", str(model_dir), "--tokens", "200", "--steps", "3",
                               "--needle", "w5 w6 w7", "--out", str(out)],
                              capture_output=True, text=True)
        self.assertEqual(proc.returncode, 0, proc.stderr)
        r = run("kv", "stats", out, "--json")
        self.assertExit(r, 0)
        doc = r.json()
        self.assertEqual(doc["tokens"], 200)
        self.assertEqual(doc["q_heads"], 4)
        r = run("kv", "select", "--cache", out, "--scorer", "exact", "--k", "1", "--block", "16",
                "--recent", "32", "--json")
        self.assertExit(r, 0)
        self.assertEqual(r.json()["results"]["exact"]["1"]["recall_at_k"], 1.0)


if __name__ == "__main__":
    unittest.main()
