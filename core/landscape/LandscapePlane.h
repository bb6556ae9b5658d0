#pragma once
// A 2-D plane in weight space shared by several runs: w(x, y) = centre + x d1 + y d2.
//  - principal(): d1, d2 = the first two principal directions of the pooled trajectory points
//    (every recorded point of every run, centred on their mean), unit length and orthogonal.
//    Computed from the smaller Gram matrix: [points x points] (X X^T, then d = X^T a / |X^T a|) when
//    there are fewer points than parameters, else [params x params] (X^T X); both by Eigen's
//    SelfAdjointEigenSolver in double. When the points span fewer than two directions the missing
//    one is a seeded random unit vector orthogonal to the first.
//  - filterNormalisedRandom(): Li et al. 2018 ("Visualizing the loss landscape of neural nets"):
//    Gaussian directions (seeded) whose row for each neuron (its incoming weights and bias: a
//    row of the layer matrix, i.e. a conv layer's filter) is rescaled to the norm of that row of
//    the centre's weights, so that the plane's scale follows each neuron's own scale.
// project(w): the least-squares coordinates (x, y) of w on the plane (the directions need not be
// orthogonal: random ones are not), exact for a point of the plane.
#include "Tensor.h"
#include "landscape/Trajectory.h"

#include <cstdint>
#include <string>

namespace ml {

enum class PlaneDirections { Principal, Random };
// "pca" / "random"; parsePlaneDirections throws InputError naming `what` for anything else.
std::string planeDirectionsName(PlaneDirections directions);
PlaneDirections parsePlaneDirections(const std::string& text, const std::string& what);

class LandscapePlane {
public:
    // Throws InputError unless the three vectors have one size and d1, d2 are independent.
    LandscapePlane(Eigen::VectorXd centre, Eigen::VectorXd first, Eigen::VectorXd second);

    static LandscapePlane principal(const std::vector<Trajectory>& trajectories, const Eigen::VectorXd& centre,
                                    std::uint64_t seed = 1);
    // `centre` as layers (the rows to normalise against), flattened for the plane.
    static LandscapePlane filterNormalisedRandom(const Parameters& centre, std::uint64_t seed);
    // Either kind, centred on the mean of the runs' final weights; `shapes`: the network's layers.
    static LandscapePlane forTrajectories(const std::vector<Trajectory>& trajectories, const Parameters& shapes,
                                          PlaneDirections directions, std::uint64_t seed);

    const Eigen::VectorXd& centre() const { return centre_; }
    const Eigen::VectorXd& first() const { return first_; }
    const Eigen::VectorXd& second() const { return second_; }
    Eigen::Index parameterCount() const { return centre_.size(); }

    Eigen::Vector2d project(const Eigen::VectorXf& weights) const;
    // out <- centre + x d1 + y d2 (out is resized once; no allocation after that).
    void pointAt(double x, double y, Eigen::VectorXf& out) const;

private:
    Eigen::VectorXd centre_, first_, second_;
    Eigen::Matrix2d inverseGram_;  // of [d1 d2]: the least-squares projection
};

// Li et al.'s filter normalisation: each row of each layer of `direction` rescaled to the norm
// of the same row of `weights` (a zero row of `direction` stays zero).
void filterNormalise(Parameters& direction, const Parameters& weights);

}  // namespace ml
