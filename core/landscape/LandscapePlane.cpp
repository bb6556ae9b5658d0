#include "landscape/LandscapePlane.h"

#include "InputError.h"
#include "Random.h"
#include "io/MemoryBudget.h"
#include "nn/FlatParameters.h"

#include <Eigen/Eigenvalues>

#include <cmath>

namespace ml {

namespace {

// Eigenvalues below this share of the largest count as zero (no spread in that direction).
constexpr double kRankTolerance = 1e-12;

Eigen::VectorXd randomUnitVector(Eigen::Index size, Random& random) {
    Eigen::VectorXd v(size);
    for (Eigen::Index i = 0; i < size; ++i) v[i] = random.normal();
    return v.normalized();
}

// `v` made orthogonal to the unit vector `unit` and normalised (Gram-Schmidt).
Eigen::VectorXd orthogonalTo(const Eigen::VectorXd& unit, Eigen::VectorXd v) {
    v -= unit.dot(v) * unit;
    return v.normalized();
}

// A direction's sign is arbitrary: fix it so that its largest entry is positive (reproducible plots).
Eigen::VectorXd withFixedSign(Eigen::VectorXd v) {
    Eigen::Index largest = 0;
    v.cwiseAbs().maxCoeff(&largest);
    if (v[largest] < 0) v = -v;
    return v;
}

}  // namespace

std::string planeDirectionsName(PlaneDirections directions) {
    return directions == PlaneDirections::Principal ? "pca" : "random";
}

PlaneDirections parsePlaneDirections(const std::string& text, const std::string& what) {
    if (text == "pca") return PlaneDirections::Principal;
    if (text == "random") return PlaneDirections::Random;
    throw InputError(what + " " + text + ": expected pca or random");
}

LandscapePlane::LandscapePlane(Eigen::VectorXd centre, Eigen::VectorXd first, Eigen::VectorXd second)
    : centre_(std::move(centre)), first_(std::move(first)), second_(std::move(second)) {
    if (first_.size() != centre_.size() || second_.size() != centre_.size())
        throw InputError("landscape plane: the centre and both directions need the same number of weights");
    Eigen::Matrix2d gram;
    gram << first_.squaredNorm(), first_.dot(second_), first_.dot(second_), second_.squaredNorm();
    if (!(std::abs(gram.determinant()) > 1e-12 * gram(0, 0) * gram(1, 1)))
        throw InputError("landscape plane: the two directions are not independent");
    inverseGram_ = gram.inverse();
}

LandscapePlane LandscapePlane::principal(const std::vector<Trajectory>& trajectories, const Eigen::VectorXd& centre,
                                         std::uint64_t seed) {
    Eigen::Index count = 0;
    for (const Trajectory& trajectory : trajectories) count += Eigen::Index(trajectory.points.size());
    const Eigen::Index size = centre.size();
    if (count == 0) throw InputError("the loss landscape needs at least one recorded point");
    requireWithinMemoryBudget(saturatingProduct(std::uint64_t(size), std::uint64_t(count) * sizeof(double)),
                              "the principal directions of " + std::to_string(count) + " recorded points");
    // X: one centred point per column.
    Eigen::MatrixXd points(size, count);
    Eigen::Index column = 0;
    for (const Trajectory& trajectory : trajectories)
        for (const Eigen::VectorXf& point : trajectory.points) {
            if (point.size() != size)
                throw InputError("run " + trajectory.label + ": " + std::to_string(point.size()) +
                                 " weights, expected " + std::to_string(size));
            points.col(column++) = point.cast<double>();
        }
    points.colwise() -= points.rowwise().mean();

    Eigen::VectorXd directions[2];
    Eigen::VectorXd variances;
    if (count <= size) {  // Gram trick: eigenvectors a of X^T X give directions X a
        Eigen::SelfAdjointEigenSolver<Eigen::MatrixXd> solver(points.transpose() * points);
        variances = solver.eigenvalues().reverse();
        for (int k = 0; k < 2 && k < count; ++k) directions[k] = points * solver.eigenvectors().col(count - 1 - k);
    } else {
        Eigen::SelfAdjointEigenSolver<Eigen::MatrixXd> solver(points * points.transpose());
        variances = solver.eigenvalues().reverse();
        for (int k = 0; k < 2 && k < size; ++k) directions[k] = solver.eigenvectors().col(size - 1 - k);
    }
    Random random(seed);
    const double largest = variances.size() > 0 ? variances[0] : 0.0;
    for (int k = 0; k < 2; ++k) {
        const bool spread = k < variances.size() && largest > 0 && variances[k] > kRankTolerance * largest;
        if (spread) directions[k] = withFixedSign(directions[k].normalized());
        else directions[k] = randomUnitVector(size, random);
        if (k == 1) directions[1] = orthogonalTo(directions[0], directions[1]);
    }
    return LandscapePlane(centre, directions[0], directions[1]);
}

void filterNormalise(Parameters& direction, const Parameters& weights) {
    for (std::size_t l = 0; l < direction.size(); ++l)
        for (Eigen::Index row = 0; row < direction[l].rows(); ++row) {
            const float norm = direction[l].row(row).norm();
            if (norm > 0) direction[l].row(row) *= weights[l].row(row).norm() / norm;
        }
}

LandscapePlane LandscapePlane::filterNormalisedRandom(const Parameters& centre, std::uint64_t seed) {
    Random random(seed);
    Eigen::VectorXd directions[2];
    for (Eigen::VectorXd& flat : directions) {
        Parameters direction = zerosLike(centre);
        for (Matrix& layer : direction)
            for (Eigen::Index i = 0; i < layer.size(); ++i) layer.data()[i] = random.normal();
        filterNormalise(direction, centre);
        flat.resize(ml::parameterCount(direction));
        flattenInto(direction, flat);
    }
    Eigen::VectorXd flatCentre(ml::parameterCount(centre));
    flattenInto(centre, flatCentre);
    return LandscapePlane(flatCentre, directions[0], directions[1]);
}

LandscapePlane LandscapePlane::forTrajectories(const std::vector<Trajectory>& trajectories, const Parameters& shapes,
                                               PlaneDirections directions, std::uint64_t seed) {
    const Eigen::VectorXd centre = meanOfFinalWeights(trajectories);
    if (centre.size() != ml::parameterCount(shapes))
        throw InputError("the recorded runs have " + std::to_string(centre.size()) + " weights, the network " +
                         std::to_string(ml::parameterCount(shapes)));
    if (directions == PlaneDirections::Principal) return principal(trajectories, centre, seed);
    Parameters layers = shapes;
    unflattenInto(centre, layers);
    return filterNormalisedRandom(layers, seed);
}

Eigen::Vector2d LandscapePlane::project(const Eigen::VectorXf& weights) const {
    // Accumulated in double without a temporary copy of the (possibly 100k-entry) difference.
    Eigen::Vector2d products = Eigen::Vector2d::Zero();
    for (Eigen::Index i = 0; i < centre_.size(); ++i) {
        const double difference = double(weights[i]) - centre_[i];
        products[0] += first_[i] * difference;
        products[1] += second_[i] * difference;
    }
    return inverseGram_ * products;
}

void LandscapePlane::pointAt(double x, double y, Eigen::VectorXf& out) const {
    out = (centre_ + x * first_ + y * second_).cast<float>();
}

}  // namespace ml
