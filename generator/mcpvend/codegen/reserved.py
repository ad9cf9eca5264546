"""Every list of words generated names must avoid, frozen: output must not depend on the Python or
pydantic that runs `mcpvend generate`. tests/test_naming.py checks that the running interpreter
and pydantic add no word these lack (a new release means a deliberate update here).
"""

# keyword.kwlist, the same in Python 3.11 to 3.13.
KEYWORDS = frozenset(
    {
        "False", "None", "True", "and", "as", "assert", "async", "await", "break", "class", "continue", "def",
        "del", "elif", "else", "except", "finally", "for", "from", "global", "if", "import", "in", "is", "lambda",
        "nonlocal", "not", "or", "pass", "raise", "return", "try", "while", "with", "yield"
    }
)  # fmt: skip

# keyword.softkwlist of Python 3.11 to 3.13 (3.12 added `type`).
SOFT_KEYWORDS = frozenset(
    {
        "_", "case", "match", "type"
    }
)  # fmt: skip

# dir(builtins) of Python 3.11 to 3.13 (3.13 added PythonFinalizationError).
BUILTINS = frozenset(
    {
        "ArithmeticError", "AssertionError", "AttributeError", "BaseException", "BaseExceptionGroup",
        "BlockingIOError", "BrokenPipeError", "BufferError", "BytesWarning", "ChildProcessError",
        "ConnectionAbortedError", "ConnectionError", "ConnectionRefusedError", "ConnectionResetError",
        "DeprecationWarning", "EOFError", "Ellipsis", "EncodingWarning", "EnvironmentError", "Exception",
        "ExceptionGroup", "False", "FileExistsError", "FileNotFoundError", "FloatingPointError", "FutureWarning",
        "GeneratorExit", "IOError", "ImportError", "ImportWarning", "IndentationError", "IndexError",
        "InterruptedError", "IsADirectoryError", "KeyError", "KeyboardInterrupt", "LookupError", "MemoryError",
        "ModuleNotFoundError", "NameError", "None", "NotADirectoryError", "NotImplemented", "NotImplementedError",
        "OSError", "OverflowError", "PendingDeprecationWarning", "PermissionError", "ProcessLookupError",
        "PythonFinalizationError", "RecursionError", "ReferenceError", "ResourceWarning", "RuntimeError",
        "RuntimeWarning", "StopAsyncIteration", "StopIteration", "SyntaxError", "SyntaxWarning", "SystemError",
        "SystemExit", "TabError", "TimeoutError", "True", "TypeError", "UnboundLocalError", "UnicodeDecodeError",
        "UnicodeEncodeError", "UnicodeError", "UnicodeTranslateError", "UnicodeWarning", "UserWarning",
        "ValueError", "Warning", "ZeroDivisionError", "_IncompleteInputError", "__build_class__", "__debug__",
        "__doc__", "__import__", "__loader__", "__name__", "__package__", "__spec__", "abs", "aiter", "all",
        "anext", "any", "ascii", "bin", "bool", "breakpoint", "bytearray", "bytes", "callable", "chr",
        "classmethod", "compile", "complex", "copyright", "credits", "delattr", "dict", "dir", "divmod",
        "enumerate", "eval", "exec", "exit", "filter", "float", "format", "frozenset", "getattr", "globals",
        "hasattr", "hash", "help", "hex", "id", "input", "int", "isinstance", "issubclass", "iter", "len",
        "license", "list", "locals", "map", "max", "memoryview", "min", "next", "object", "oct", "open", "ord",
        "pow", "print", "property", "quit", "range", "repr", "reversed", "round", "set", "setattr", "slice",
        "sorted", "staticmethod", "str", "sum", "super", "tuple", "type", "vars", "zip"
    }
)  # fmt: skip

# dir(pydantic.BaseModel) of pydantic 2.14.
BASEMODEL_ATTRIBUTES = frozenset(
    {
        "__abstractmethods__", "__annotations__", "__class__", "__class_getitem__", "__copy__", "__deepcopy__",
        "__delattr__", "__dict__", "__dir__", "__doc__", "__eq__", "__fields_set__", "__format__", "__ge__",
        "__get_pydantic_core_schema__", "__get_pydantic_json_schema__", "__getattr__", "__getattribute__",
        "__getstate__", "__gt__", "__hash__", "__init__", "__init_subclass__", "__iter__", "__le__", "__lt__",
        "__module__", "__ne__", "__new__", "__pretty__", "__pydantic_complete__", "__pydantic_core_schema__",
        "__pydantic_decorators__", "__pydantic_extra__", "__pydantic_fields_set__", "__pydantic_init_subclass__",
        "__pydantic_on_complete__", "__pydantic_parent_namespace__", "__pydantic_private__",
        "__pydantic_root_model__", "__pydantic_serializer__", "__pydantic_validator__", "__reduce__",
        "__reduce_ex__", "__replace__", "__repr__", "__repr_args__", "__repr_name__", "__repr_recursion__",
        "__repr_str__", "__rich_repr__", "__setattr__", "__setstate__", "__sizeof__", "__slots__", "__str__",
        "__subclasshook__", "_abc_impl", "_calculate_keys", "_copy_and_set_values", "_get_value", "_iter",
        "_setattr_handler", "construct", "copy", "dict", "from_orm", "json", "model_computed_fields",
        "model_config", "model_construct", "model_copy", "model_dump", "model_dump_json", "model_extra",
        "model_fields", "model_fields_set", "model_json_schema", "model_parametrized_name", "model_post_init",
        "model_rebuild", "model_validate", "model_validate_json", "model_validate_strings", "parse_file",
        "parse_obj", "parse_raw", "schema", "schema_json", "update_forward_refs", "validate"
    }
)  # fmt: skip
