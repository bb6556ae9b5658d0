#!/usr/bin/env python3
"""Golden values of tests/test_conv.cpp oneConvStepMatchesTorch(): one momentum step (lr 0.1, first
step w - lr*g) on 1x4x4-conv2k3s2p1-1, tanh, mse, computed by torch in float64 (no code under test).
    /usr/bin/python3 tests/conv_golden_reference.py
"""
import torch
torch.set_default_dtype(torch.float64)
x = torch.tensor([(i - 7.5) / 8 for i in range(16)]).reshape(1, 1, 4, 4)
cw = torch.tensor([0.1 * k - 0.8 for k in range(18)]).reshape(2, 1, 3, 3).requires_grad_()
cb = torch.tensor([0.1, -0.1]).requires_grad_()
dw = torch.tensor([[0.1 * k - 0.3 for k in range(8)]]).requires_grad_()
db = torch.tensor([0.05]).requires_grad_()
h = torch.tanh(torch.nn.functional.conv2d(x, cw, cb, stride=2, padding=1))
y = h.flatten(1) @ dw.T + db
loss = ((y - 0.5) ** 2).mean()
loss.backward()
print("loss", repr(loss.item()))
with torch.no_grad():
    w1 = cw - 0.1 * cw.grad
    b1 = cb - 0.1 * cb.grad
print("conv after:", ", ".join(f"{v:.9g}f" for v in w1.flatten().tolist()))
print("bias after:", ", ".join(f"{v:.9g}f" for v in b1.tolist()))
