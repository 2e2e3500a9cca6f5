"""Recurrent layers: RNN cells, the RNN layers over them, and sequence wrappers."""
from .bidirectional import Bidirectional
from .conv_lstm import ConvLSTM1D, ConvLSTM2D, ConvLSTM3D
from .gru import GRU, GRUCell
from .lstm import LSTM, LSTMCell
from .rnn import RNN
from .simple_rnn import SimpleRNN, SimpleRNNCell
from .stacked_rnn_cells import StackedRNNCells
from .time_distributed import TimeDistributed

__all__ = ["Bidirectional", "GRU", "GRUCell", "LSTM", "LSTMCell", "RNN", "SimpleRNN",
           "SimpleRNNCell", "StackedRNNCells", "TimeDistributed",
           "ConvLSTM1D", "ConvLSTM2D", "ConvLSTM3D"]
