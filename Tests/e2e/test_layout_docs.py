"""The documents that describe the code's layout say what Package.swift and the folders say:
ARCHITECTURE.md's table of targets and its list of test targets (names, kinds of dependency
aside, and dependencies in Package.swift's order), and docs/development.md's layout table (every
folder of `Sources/` listed, every path listed there); and every relative link of the documents
leads to a file; and only the position index's folder names the index's tables."""
import json
import re
import shutil
import subprocess

import pytest

from conftest import ROOT


def package():
    """Package.swift's targets: name → (type, the names of their dependencies in order)."""
    swift = shutil.which("swift")
    if swift is None:
        pytest.skip("swift is not installed")
    dump = subprocess.run([swift, "package", "dump-package"], cwd=ROOT, capture_output=True, text=True, check=True)
    targets = {}
    for target in json.loads(dump.stdout)["targets"]:
        names = [value[0] for dependency in target.get("dependencies", []) for value in dependency.values()]
        targets[target["name"]] = (target["type"], names)
    return targets


def table(text, header):
    """The rows of the markdown table whose header row starts with `header`, as lists of cells."""
    lines = text.splitlines()
    start = next(k for k, line in enumerate(lines) if line.startswith(header))
    rows = []
    for line in lines[start + 2:]:
        if not line.startswith("|"):
            break
        rows.append([cell.strip() for cell in line.strip("|").split("|")])
    return rows


def test_the_architectures_targets_are_those_of_the_package():
    targets = package()
    text = (ROOT / "ARCHITECTURE.md").read_text()
    described = {}
    for name, kind, depends in table(text, "| target | kind | depends on |"):
        name = name.strip("`")
        names = [] if depends.startswith("nothing") else [part.strip() for part in depends.split(",")]
        described[name] = (kind, names)
    built = {name: value for name, value in targets.items() if value[0] != "test"}
    assert set(described) == set(built)
    for name, (kind, names) in described.items():
        assert names == built[name][1], name
        assert ("executable" in kind) == (built[name][0] == "executable"), name
    # The test targets, in one sentence: `Name (dependency, …)`.
    sentence = text[text.index("Test targets:"):].split("\n\n")[0]
    listed = {name: [part.strip() for part in deps.split(",")]
              for name, deps in re.findall(r"(\w+Tests) \(([^)]*)\)", sentence.replace("\n", " "))}
    assert listed == {name: value[1] for name, value in targets.items() if value[0] == "test"}


def test_the_layout_table_names_every_source_folder_and_only_paths_that_exist():
    rows = table((ROOT / "docs" / "development.md").read_text(), "| path | what |")
    paths = [path.strip("`") for row in rows for path in re.findall(r"`([^`]+)`", row[0])]
    assert paths
    for path in paths:
        if "*" in path:
            assert list(ROOT.glob(path)), path
        else:
            assert (ROOT / path).exists(), path
    folders = {f"Sources/{folder.name}" for folder in (ROOT / "Sources").iterdir() if folder.is_dir()}
    assert folders <= set(paths), sorted(folders - set(paths))


def test_every_relative_link_of_the_documents_leads_to_a_file():
    documents = [ROOT / "README.md", ROOT / "ARCHITECTURE.md", ROOT / "BENCHMARKS.md"]
    documents += sorted((ROOT / "docs").glob("*.md")) + sorted((ROOT / "editors").rglob("*.md"))
    documents = [path for path in documents if "node_modules" not in path.parts]
    links = 0
    for document in documents:
        for target in re.findall(r"\]\(([^)#\s]+)", document.read_text()):
            if re.match(r"[a-z]+:", target):
                continue
            links += 1
            assert (document.parent / target).exists(), f"{document.relative_to(ROOT)}: {target}"
    assert links > 10


def test_only_the_position_index_folder_names_the_index_tables():
    """ARCHITECTURE.md's invariant of the index's wall: outside comments, the tables of the
    position index are named in `Sources/GameStore/PositionIndex` only."""
    tables = re.compile(r"\b(PositionMoves|PositionSignatures|PositionTree|PositionSingles|PositionIndexState)\b")
    inside = ROOT / "Sources" / "GameStore" / "PositionIndex"
    named = []
    for path in sorted((ROOT / "Sources").rglob("*.swift")):
        for number, line in enumerate(path.read_text().splitlines(), 1):
            if tables.search(line) and not line.strip().startswith("//"):
                named.append((path, number))
    assert named and all(path.is_relative_to(inside) for path, _ in named), \
        [f"{path.relative_to(ROOT)}:{number}" for path, number in named if not path.is_relative_to(inside)]
