"""Audio front ends: spectrograms of raw signals."""
from .stft_spectrogram import STFTSpectrogram

__all__ = ["STFTSpectrogram"]
