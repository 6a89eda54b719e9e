# Builds smg-ffi (the C ABI, a cdylib) with cargo and ships it inside the package,
# where smg/__init__.py loads it with ctypes.
#
# SMG_PREBUILT_LIB=/abs/path/libsmg.so ships that library instead of building one.
# The test script does so with the library `cargo test --workspace` has just built:
# cargo builds smg-ffi alone with its dependencies' features resolved apart from the
# workspace's, so building it here compiles the whole tree once more (13.5 min of a
# cold CI run on two cores, for a copy of what is already there).
import os
import shutil
import sysconfig

from setuptools import setup

prebuilt = os.environ.get("SMG_PREBUILT_LIB")
if prebuilt:
    from setuptools.command.build_py import build_py
    from setuptools.dist import Distribution

    if not os.path.isfile(prebuilt):
        raise SystemExit(f"SMG_PREBUILT_LIB: no library at {prebuilt}")

    class BuildWithPrebuilt(build_py):
        def run(self):
            super().run()
            name = "_native" + sysconfig.get_config_var("EXT_SUFFIX")
            # Always copied: a library left in build/ by an earlier build may be
            # newer than this one, and copy_file would keep it.
            target = os.path.join(self.build_lib, "smg", name)
            shutil.copyfile(prebuilt, target)
            shutil.copymode(prebuilt, target)

    class BinaryDistribution(Distribution):
        # A wheel tagged for this platform and Python, as the cargo build's is.
        def has_ext_modules(self):
            return True

    setup(cmdclass={"build_py": BuildWithPrebuilt}, distclass=BinaryDistribution)
else:
    from setuptools_rust import Binding, RustExtension

    setup(
        rust_extensions=[
            RustExtension("smg._native", path="../Cargo.toml", binding=Binding.NoBinding, debug=False)
        ],
    )
