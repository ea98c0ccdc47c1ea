import json

from ptxbench_train.cli import main
from ptxbench_train.vllm import vllm_argv


def _adapter(tmp_path, rank):
    folder = tmp_path / f"adapter-r{rank}"
    folder.mkdir()
    (folder / "adapter_config.json").write_text(json.dumps({"r": rank}))
    return str(folder)


def test_base_and_adapters_become_vllm_serve_arguments(tmp_path):
    a, b = _adapter(tmp_path, 32), _adapter(tmp_path, 8)
    argv = vllm_argv("/models/qwen", "qwen", {"qwen-fixit": a, "qwen-kg": b}, "0.0.0.0", 8001,
                     max_model_len=65536, tensor_parallel=2, extra=["--gpu-memory-utilization", "0.9"])
    assert argv[:3] == ["vllm", "serve", "/models/qwen"]
    pairs = dict(zip(argv[3::2], argv[4::2]))
    assert pairs["--served-model-name"] == "qwen" and pairs["--port"] == "8001"
    assert "--enable-lora" in argv
    assert argv[argv.index("--max-lora-rank") + 1] == "32"
    assert argv[argv.index("--max-loras") + 1] == "2"
    i = argv.index("--lora-modules")
    assert argv[i + 1:i + 3] == [f"qwen-fixit={a}", f"qwen-kg={b}"]
    assert argv[argv.index("--max-model-len") + 1] == "65536"
    assert argv[argv.index("--tensor-parallel-size") + 1] == "2"
    assert argv[-2:] == ["--gpu-memory-utilization", "0.9"]


def test_without_adapters_no_lora_flags():
    argv = vllm_argv("org/model", "org/model", {}, "127.0.0.1", 8000)
    assert "--enable-lora" not in argv and "--lora-modules" not in argv


def test_cli_prints_the_command_and_checks_adapters(tmp_path, capsys):
    a = _adapter(tmp_path, 16)
    assert main(["serve", "--engine", "vllm", "--base", "org/m", "--adapter", f"tuned={a}",
                 "--print-argv"]) == 0
    argv = json.loads(capsys.readouterr().out)
    assert f"tuned={a}" in argv and argv[argv.index("--served-model-name") + 1] == "org/m"
    assert main(["serve", "--engine", "vllm", "--base", "org/m", "--adapter", f"x={tmp_path}"]) == 2
    assert "no adapter_config.json" in capsys.readouterr().err


def test_missing_vllm_is_a_clear_error(tmp_path, capsys, monkeypatch):
    monkeypatch.setenv("PATH", str(tmp_path))
    assert main(["serve", "--engine", "vllm", "--base", "org/m"]) == 2
    assert "'vllm' program is not on PATH" in capsys.readouterr().err
