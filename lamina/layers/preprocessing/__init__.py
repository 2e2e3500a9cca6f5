"""Preprocessing layers."""
from .normalization import Normalization
from .rescaling import Rescaling

__all__ = ["Normalization", "Rescaling"]

from .category_encoding import CategoryEncoding  # noqa: E402
from .discretization import Discretization  # noqa: E402

__all__ += ["CategoryEncoding", "Discretization"]

from .center_crop import CenterCrop  # noqa: E402
from .random_brightness import RandomBrightness  # noqa: E402
from .random_contrast import RandomContrast  # noqa: E402
from .random_crop import RandomCrop  # noqa: E402
from .random_flip import RandomFlip  # noqa: E402
from .random_rotation import RandomRotation  # noqa: E402
from .random_translation import RandomTranslation  # noqa: E402
from .random_zoom import RandomZoom  # noqa: E402
from .resizing import Resizing  # noqa: E402

__all__ += ["CenterCrop", "RandomBrightness", "RandomContrast", "RandomCrop", "RandomFlip",
            "RandomRotation", "RandomTranslation", "RandomZoom", "Resizing"]

from .color_augment import (AutoContrast, RandomColorDegeneration,  # noqa: E402
                            RandomGrayscale, RandomHue, RandomInvert, RandomSaturation,
                            Solarization)

__all__ += ["AutoContrast", "RandomColorDegeneration", "RandomGrayscale", "RandomHue",
            "RandomInvert", "RandomSaturation", "Solarization"]

from .mix_augment import CutMix, MixUp  # noqa: E402

__all__ += ["CutMix", "MixUp"]

from .more_augment import (RandomColorJitter, RandomErasing,  # noqa: E402
                           RandomGaussianBlur, RandomPosterization, RandomSharpness)

__all__ += ["RandomColorJitter", "RandomErasing", "RandomGaussianBlur",
            "RandomPosterization", "RandomSharpness"]

from .geometry_augment import Equalization, RandomPerspective, RandomShear  # noqa: E402

__all__ += ["Equalization", "RandomPerspective", "RandomShear"]

from .rand_augment import RandAugment  # noqa: E402

__all__ += ["RandAugment"]

from .elastic_augment import RandomElasticTransform  # noqa: E402
from .max_num_bounding_boxes import MaxNumBoundingBoxes  # noqa: E402

__all__ += ["MaxNumBoundingBoxes", "RandomElasticTransform"]

from .aug_mix import AugMix  # noqa: E402

__all__ += ["AugMix"]

from .clahe import ContrastLimitedAdaptiveHistogramEqualization  # noqa: E402

__all__ += ["ContrastLimitedAdaptiveHistogramEqualization"]
from .hashed_crossing import HashedCrossing  # noqa: E402
from .hashing import Hashing  # noqa: E402
from .integer_lookup import IntegerLookup  # noqa: E402
from .string_lookup import StringLookup  # noqa: E402
from .text_vectorization import TextVectorization  # noqa: E402

__all__ += ["HashedCrossing", "Hashing", "IntegerLookup", "StringLookup", "TextVectorization"]
