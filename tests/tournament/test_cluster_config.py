"""The `cluster` key of a tournament file: where its games are played (a Dask scheduler's
address, with TLS files found beside the config like bot files), kept out of what a resume
compares, so a run started on a laptop may be finished on a cluster and back."""

from __future__ import annotations

from pathlib import Path

import pytest

from arena.tournament.config import ClusterConfig, ConfigError
from arena.tournament.load import load_tournament
from arena.tournament.run.runner import run_tournament

HEAD = """\
name: t
rules: dice
seed: 3
entrants: [random, honest]
"""


def _load(tmp_path: Path, tail: str) -> object:
    path = tmp_path / "t.yaml"
    path.write_text(HEAD + tail)
    return load_tournament(path)


def test_an_address_names_the_scheduler(tmp_path: Path) -> None:
    cfg = _load(tmp_path, "cluster: tcp://host:8786\n")
    assert cfg.cluster == ClusterConfig("tcp://host:8786")  # type: ignore[attr-defined]


def test_tls_files_are_found_beside_the_config(tmp_path: Path) -> None:
    (tmp_path / "tls").mkdir()
    for name in ("ca.pem", "me.pem", "me.key"):
        (tmp_path / "tls" / name).write_text("x")
    cfg = _load(tmp_path, "cluster:\n  address: tls://host:8786\n  ca: tls/ca.pem\n"
                          "  cert: tls/me.pem\n  key: tls/me.key\n")
    folder = str(tmp_path / "tls")
    assert cfg.cluster == ClusterConfig(  # type: ignore[attr-defined]
        "tls://host:8786", f"{folder}/ca.pem", f"{folder}/me.pem", f"{folder}/me.key")


@pytest.mark.parametrize(("tail", "said"), [
    ("cluster: host:8786\n",
     ("t.yaml:5: cluster: 'host:8786' must start with tcp:// or tls:// (the scheduler's "
     "address, as `dask scheduler` prints it)")),
    ("cluster: 8786\n",
     ("t.yaml:5: cluster: must be a scheduler's address or a mapping of address, ca, cert, key; "
     "got 8786")),
    ("cluster:\n  address: tls://h:1\n  cert: me.pem\n",
     ("t.yaml:7: cluster.cert: file 'me.pem' not found: looked at {folder}/me.pem (a TLS file is "
     "found relative to the config file)")),
    ("cluster:\n  address: tls://h:1\n  certificate: me.pem\n",
     "t.yaml:7: cluster.certificate: unknown key 'certificate' (known: address, ca, cert, key)"),
    ("cluster:\n  ca: ca.pem\n", "t.yaml:5: cluster.address: this key is required"),
])
def test_a_wrong_cluster_is_one_line(tmp_path: Path, tail: str, said: str) -> None:
    with pytest.raises(ConfigError) as caught:
        _load(tmp_path, tail)
    assert str(caught.value) == said.format(folder=tmp_path.resolve()).replace(
        "t.yaml", str(tmp_path / "t.yaml"))


def test_the_saved_config_names_the_cluster_and_its_files_from_the_results_folder(
    tmp_path: Path
) -> None:
    for name in ("ca.pem", "me.pem", "me.key"):
        (tmp_path / name).write_text("x")
    cfg = _load(tmp_path, "cluster:\n  address: tls://host:8786\n  ca: ca.pem\n"
                          "  cert: me.pem\n  key: me.key\n")
    run_tournament(cfg, tmp_path / "out", workers=1)  # type: ignore[arg-type]
    saved = (tmp_path / "out" / "config.yaml").read_text()
    assert "cluster:\n  address: tls://host:8786\n  ca: ../ca.pem\n  cert: ../me.pem\n" \
           "  key: ../me.key\n" in saved
    again = load_tournament(tmp_path / "out" / "config.yaml")
    assert again.cluster == cfg.cluster  # type: ignore[attr-defined]


def test_resume_goes_across_local_and_cluster_runs(tmp_path: Path) -> None:
    local = _load(tmp_path, "")
    run_tournament(local, tmp_path / "out", workers=1)  # type: ignore[arg-type]
    on_cluster = _load(tmp_path, "cluster: tcp://host:8786\n")
    report = run_tournament(on_cluster, tmp_path / "out", workers=1,  # type: ignore[arg-type]
                            resume=True)
    assert (report.played, report.resumed) == (0, 2)
    run_tournament(on_cluster, tmp_path / "back", workers=1)  # type: ignore[arg-type]
    back = run_tournament(local, tmp_path / "back", workers=1, resume=True)  # type: ignore[arg-type]
    assert (back.played, back.resumed) == (0, 2)
