# Imports robustdet, which registers its datasets, transforms and metrics
# in mmdet's registries. mmengine imports it when it loads a config
# (Config.fromfile), so mmdet's own tools find robustdet's types too. The
# configs that use them inherit this part, directly or through a part that
# does, so the import is written once.
custom_imports = dict(imports=['robustdet'], allow_failed_imports=False)
