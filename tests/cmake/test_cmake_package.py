"""What `pip install` puts in place: a pure wheel with the runtime headers, toolchains.yaml and
the CMake package, `croktilec --cmake-dir`, the cmake.prefix entry point, the package version."""
from __future__ import annotations

import re
import zipfile
from pathlib import Path

import croktile_driver
from cmake_helpers import REPO, run, write_project


def test_the_wheel_is_pure_and_ships_the_data(croktile):
    assert croktile.wheel.name == f"croktile-{croktile_driver.__version__}-py3-none-any.whl"
    with zipfile.ZipFile(croktile.wheel) as whl:
        names = set(whl.namelist())
        meta = next(n for n in names if n.endswith(".dist-info/WHEEL"))
        assert "Root-Is-Purelib: true" in whl.read(meta).decode()
        entry_points = whl.read(meta.replace("WHEEL", "entry_points.txt")).decode()
    data = "croktile_driver/data/"
    for header in (REPO / "runtime").glob("*.h"):
        assert data + "runtime/" + header.name in names
    for cmake_file in (REPO / "cmake").glob("*.cmake"):
        assert data + "cmake/" + cmake_file.name in names
    assert data + "toolchains.yaml" in names and "croktile_driver/frontend/_parsetab.py" in names
    assert "[cmake.prefix]\ncroktile = croktile_driver.data.cmake" in entry_points
    assert "croktilec = croktile_driver.cli:main" in entry_points


def test_cmake_dir_is_the_installed_package_directory(croktile):
    site = run([croktile.python, "-c", "import croktile_driver, os; print(os.path.dirname(croktile_driver.__file__))"],
               cwd=croktile.root, env=croktile.env).stdout.strip()
    assert site.startswith(str(croktile.venv)), "the venv's own copy, not this checkout"
    assert croktile.cmake_dir == str(Path(site) / "data" / "cmake")
    assert (Path(croktile.cmake_dir) / "CroktileConfig.cmake").is_file()


def test_the_entry_point_names_the_cmake_dir(croktile):
    """What scikit-build-core does with a cmake.prefix entry point: files(load()) joins CMAKE_PREFIX_PATH."""
    probe = ("from importlib.metadata import entry_points; from importlib.resources import files\n"
             "ep, = [e for e in entry_points(group='cmake.prefix') if e.name == 'croktile']\n"
             "print(*getattr(files(ep.load()), '_paths', [files(ep.load())]))")
    assert run([croktile.python, "-c", probe], cwd=croktile.root, env=croktile.env).stdout.strip() == croktile.cmake_dir


VERSION_PROJECT = """
cmake_minimum_required(VERSION 3.20)
project(versions LANGUAGES NONE)
foreach(request IN ITEMS "" 0 0.1 0.1.0 0.2 1 0.1...0.3 0.2...<1.0)
  unset(Croktile_DIR CACHE)
  find_package(Croktile ${request} QUIET)
  message(STATUS "request '${request}': found=${Croktile_FOUND} version=${Croktile_VERSION}")
endforeach()
find_package(Croktile REQUIRED)
get_target_property(exe Croktile::croktilec IMPORTED_LOCATION)
get_target_property(inc Croktile::runtime INTERFACE_INCLUDE_DIRECTORIES)
message(STATUS "CROKTILE_VERSION=${CROKTILE_VERSION}")
message(STATUS "CROKTILE_EXECUTABLE=${CROKTILE_EXECUTABLE}")
message(STATUS "imported=${exe}")
message(STATUS "runtime=${inc}")
"""


def test_find_package_version_and_what_it_provides(croktile, tmp_path):
    assert croktile_driver.__version__ == "0.1.0", "update the version requests below"
    write_project(tmp_path / "src", {"CMakeLists.txt": VERSION_PROJECT})
    out = croktile.configure(tmp_path / "src", tmp_path / "build").stdout
    found = dict(re.findall(r"request '([^']*)': found=(\w*)", out))
    assert found == {"": "1", "0": "1", "0.1": "1", "0.1.0": "1", "0.2": "0", "1": "0",
                     "0.1...0.3": "1", "0.2...<1.0": "0"}, out
    assert "CROKTILE_VERSION=0.1.0" in out
    exe = str(croktile.croktilec)
    assert f"CROKTILE_EXECUTABLE={exe}" in out and f"imported={exe}" in out, \
        "the croktilec installed with the package, not another one on PATH"
    assert f"runtime={Path(croktile.cmake_dir).parent / 'runtime'}" in out


def test_a_croktilec_of_another_version_is_refused(croktile, tmp_path):
    fake = tmp_path / "croktilec"
    fake.write_text("#!/bin/sh\necho 'croktilec (Croktile) 9.9.9'\n")
    fake.chmod(0o755)
    write_project(tmp_path / "src", {"CMakeLists.txt": "cmake_minimum_required(VERSION 3.20)\n"
                                     "project(p LANGUAGES NONE)\nfind_package(Croktile REQUIRED)\n"})
    res = croktile.configure(tmp_path / "src", tmp_path / "build", "Ninja", f"-DCROKTILE_EXECUTABLE={fake}",
                             check=False)
    assert res.returncode != 0
    assert "is not croktilec 0.1.0" in " ".join(res.stdout.split()), res.stdout


CONSUMER = {
    "pyproject.toml": """
[build-system]
requires = ["scikit-build-core", "croktile"]
build-backend = "scikit_build_core.build"

[project]
name = "croktile-consumer"
version = "1.0"

[tool.scikit-build]
wheel.platlib = false
""",
    "CMakeLists.txt": """
cmake_minimum_required(VERSION 3.20)
project(consumer LANGUAGES NONE)
find_package(Croktile 0.1 CONFIG REQUIRED)   # no CMAKE_PREFIX_PATH: the entry point
file(WRITE "${CMAKE_BINARY_DIR}/found.txt" "${Croktile_DIR}")
install(FILES "${CMAKE_BINARY_DIR}/found.txt" DESTINATION croktile_consumer)
""",
}


def test_scikit_build_core_projects_find_it_without_help(croktile, tmp_path):
    sbc = re.search(r'"(scikit-build-core[^"]*)"', (REPO / "pyproject.toml").read_text())[1]
    run([croktile.python, "-m", "pip", "install", "--quiet", sbc], env=croktile.env)
    write_project(tmp_path / "consumer", CONSUMER)
    env = {k: v for k, v in croktile.env.items() if not k.startswith("CMAKE_")}
    run([croktile.python, "-m", "pip", "wheel", "--quiet", "--no-build-isolation", "--no-deps",
         "-w", tmp_path / "out", tmp_path / "consumer"], env=env)
    wheel, = (tmp_path / "out").glob("*.whl")
    with zipfile.ZipFile(wheel) as whl:
        found = whl.read("croktile_consumer/found.txt").decode()
    assert Path(found).resolve() == Path(croktile.cmake_dir).resolve()
