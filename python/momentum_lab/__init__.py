"""Momentum Lab's PyTorch bridge: the neuron-mean optimizers, a recorder that writes run folders
the app and CLI open, and readers of run and study folders. See docs/guide/pytorch.md."""
from ._means import compact_means, group_values, share_, share_second_moment_
from .optim import (AdamMini, NeuronMeanAdam, NeuronMeanAdamW, NeuronMeanEMA, NeuronMeanSGD, neuron_layers,
                    neuron_param_groups)
from .reader import Run, Study, read_run, read_study
from .recorder import Recorder, catalog_run, infer_network

__all__ = ["AdamMini", "NeuronMeanAdam", "NeuronMeanAdamW", "NeuronMeanEMA", "NeuronMeanSGD", "Recorder", "Run",
           "Study", "catalog_run", "compact_means", "group_values", "infer_network", "neuron_layers",
           "neuron_param_groups", "read_run", "read_study", "share_", "share_second_moment_"]
