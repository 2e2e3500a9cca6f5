"""Audio front ends: spectrograms of raw signals."""
from .mel_spectrogram import MelSpectrogram
from .stft_spectrogram import STFTSpectrogram

__all__ = ["MelSpectrogram", "STFTSpectrogram"]
