# Builds smg-ffi (the C ABI, a cdylib) with cargo and ships it inside the package,
# where smg/__init__.py loads it with ctypes.
from setuptools import setup
from setuptools_rust import Binding, RustExtension

setup(
    rust_extensions=[
        RustExtension("smg._native", path="../Cargo.toml", binding=Binding.NoBinding, debug=False)
    ],
)
