# Copyright (c) robustdet contributors. All rights reserved.
from .checkpoint import (load_checkpoint_file, load_checkpoint_to_model,
                         load_checkpoint_to_runner)
from .errors import RobustDetError
from .seeding import derive_seed
from .setup_env import register_all_modules

__all__ = [
    'RobustDetError', 'derive_seed', 'load_checkpoint_file',
    'load_checkpoint_to_model', 'load_checkpoint_to_runner',
    'register_all_modules'
]
