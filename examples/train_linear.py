"""A few hundred steps of learning on flowstate's Gymnasium environment: a linear
policy (rate = exp(w . obs + b) Mbit/s) improved by random search, numpy only. It shows
the environment end to end; it is not a good controller.

    python examples/train_linear.py [--iterations N] [--steps N]
"""

import argparse

import numpy as np

from flowstate.gym import FlowstateEnv

SCENARIO = {
    "name": "train",
    "duration": "6s",
    "link": {"capacity": "2Mbps", "delay": "20ms", "queue": "100ms"},
    "flows": [{"name": "agent", "kind": "python", "controller": "flowstate.controllers:Hold"}],
}


def episode_return(env, w, b, seed, steps):
    obs, _ = env.reset(seed=seed)
    total = 0.0
    for _ in range(steps):
        rate = 1e6 * float(np.exp(np.clip(w @ obs + b, -4.0, 2.0)))
        obs, reward, terminated, truncated, _ = env.step([rate])
        total += reward
        if terminated or truncated:
            break
    return total


def train(iterations=6, steps=50, seed=1):
    env = FlowstateEnv(SCENARIO)
    rng = np.random.default_rng(seed)
    w, b = np.zeros(env.observation_space.shape[0]), 0.0
    best = episode_return(env, w, b, seed, steps)
    history = [best]
    for _ in range(iterations):
        dw, db = rng.normal(0, 0.3, w.shape), rng.normal(0, 0.3)
        for sign in (1, -1):
            score = episode_return(env, w + sign * dw, b + sign * db, seed, steps)
            if score > best:
                best, w, b = score, w + sign * dw, b + sign * db
        history.append(best)
    return history


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--iterations", type=int, default=6)
    parser.add_argument("--steps", type=int, default=50)
    a = parser.parse_args()
    h = train(a.iterations, a.steps)
    print("return per iteration:", " ".join(f"{x:.1f}" for x in h))
