#pragma once
// A 2-D convolution (cross-correlation, as PyTorch's Conv2d) with an element-wise activation f.
// A sample is C_in x H x W values in channel-row-column order; the output C_out x H' x W', with
// H' = (H + 2p - k) / s + 1 (likewise W').
//   forward:  Z[o, y, x] = b_o + sum_{c,i,j} W[o, c, i, j] * X[c, y*s + i - p, x*s + j - p],  A = f(Z)
//   backward: dZ = dA .* f'(Z),  dW = sum over positions dZ * patch,  db = sum of dZ,  dX = col2im(W^T dZ)
// By im2col, one sample at a time: its patches become the columns of a matrix [C_in*k*k x positions],
// so forward and backward are Eigen products per sample that read and write the batch rows in place.
// Stride 1 is convolved directly instead in forward (directForward), and so is dW for a one-channel
// input (directWeightGradient).
// Parameters [C_out x (C_in*k*k + 1)]: row o = output channel o's kernel flattened in PyTorch's
// [in][kh][kw] order, then its bias. So a row is one "neuron" (the per-channel neuron mean) and
// the k*k consecutive columns of input channel c are its fan-out group (columnsPerInput()).
#include "nn/Activation.h"
#include "nn/Layer.h"
#include "nn/NetworkSpec.h"

namespace ml {

class ConvLayer final : public Layer {
public:
    // token: a Conv token (channels, kernel, stride, padding); `input` must fit it (NetworkSpec::shapes).
    // reluDerivativeByMaxPool: a ReLU layer followed by max pooling, whose backward passes dL/dZ
    // already (PoolLayer's reluInput): backward then takes its output gradient as dZ as it is.
    ConvLayer(SampleShape input, const LayerToken& token, Activation activation, bool reluDerivativeByMaxPool = false);

    Eigen::Index inputSize() const override { return input_.size(); }
    Eigen::Index outputSize() const override { return output_.size(); }
    Shape parameterShape() const override { return {output_.channels, patchSize() + 1}; }
    Eigen::Index columnsPerInput() const override { return Eigen::Index{kernel_} * kernel_; }
    // Glorot uniform as torch.nn.init.xavier_uniform_: fan-in C_in*k*k, fan-out C_out*k*k.
    void initializeGlorotUniform(Matrix& parameters, Random& random) const override;

    std::unique_ptr<Workspace> createWorkspace() const override;
    const BatchMatrix& forward(const Matrix& parameters, const BatchMatrix& input, Workspace& work) const override;
    void backward(const Matrix& parameters, const BatchMatrix& input, BatchMatrix& outputGradient, Workspace& work,
                  Matrix& parameterGradient, BatchMatrix* inputGradient) const override;
    // A sample's gradient is a sum over positions (dZ_s patches_s^T), whose square no product of
    // squares gives: each sample's gradient is formed in the scratch (one sample's patches, no
    // more memory), squared and summed — the cost of one more weight gradient.
    bool sampleGradientNormSquares(const BatchMatrix& input, const BatchMatrix& delta, SampleScratch& scratch,
                                   SampleNormSquares& norms) const override;

private:
    struct Buffers;

    Eigen::Index patchSize() const { return Eigen::Index{input_.channels} * kernel_ * kernel_; }
    Eigen::Index positions() const { return Eigen::Index{output_.height} * output_.width; }
    // Where kernel tap (ki, kj) reads the input: the output rows and columns it sees inside the
    // image (the rest is padding) and the offset, within a channel, of the first value it reads.
    struct TapWindow {
        int outRow = 0, rows = 0, outColumn = 0, columns = 0;
        Eigen::Index inputOffset = 0;
    };
    TapWindow tapWindow(int ki, int kj) const;
    // Calls applyRow(first patch value, first image value, count) for every output row of every
    // tap of every input channel that reads inside the image (zero-filling the padding of non-const
    // patches first): im2col and its adjoint in one place. Image values are `stride` apart.
    template <class ImageFloat, class PatchFloat, class ApplyRow>
    void forEachTapRow(ImageFloat* image, PatchFloat* patchRows, ApplyRow applyRow) const;
    // One sample's patches (`image`: its C_in x H x W values) into `patches`, row-major
    // [C_in*k*k x H'*W'] (buffers.patches, or the SNR's scratch).
    void gatherPatches(const float* image, float* patches) const;
    // Adds buffers.patchGradient back onto the sample's input gradient (im2col's adjoint).
    void scatterPatches(const Buffers& buffers, float* imageGradient) const;
    // Stride 1: forward convolves the padded image directly, without im2col (ConvLayer.cpp,
    // convolveDirect). The weight gradient does so for one input channel only (a first layer on grey
    // images; correlateOneChannel): with more channels its short sums per tap cost more than a GEMM.
    bool directForward() const;
    // Z beside A = f(Z), for the derivative; not for a direct ReLU layer: A > 0 is Z > 0, and
    // writing Z for the whole batch cost as much as its loads (a store-bound forward).
    bool storesPreActivation() const;
    bool directWeightGradient() const;
    // The sample's image inside buffers.paddedImage's zero border, channel after channel, rows of
    // paddedWidth() floats; returns its first value (the image itself when it has that shape already).
    int paddedWidth() const;
    const float* paddedImage(Buffers& buffers, const float* image) const;

    SampleShape input_;
    SampleShape output_;
    int kernel_;
    int stride_;
    int padding_;
    Activation activation_;
    bool reluDerivativeByMaxPool_;
};

}  // namespace ml
