# Type stub of scopa_core: the API of the compiled core (the twin has the same one).
from scopa_core._checks import CoreError as CoreError
from scopa_core._core import *  # noqa: F403
from scopa_core._core import Position as Position

IMPLEMENTATION: str
__all__: list[str]
