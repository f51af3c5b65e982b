"""flowstate.gym: a Gymnasium environment on the simulator (gymnasium's own checker,
determinism per seed, vector environments over processes, trace episodes) and the
training example of examples/train_linear.py."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

gymnasium = pytest.importorskip("gymnasium")
np = pytest.importorskip("numpy")

import flowstate  # noqa: E402
from flowstate.gym import FlowstateEnv  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent

SCENARIO = {
    "name": "gym",
    "duration": "3s",
    "link": {"capacity": "2Mbps", "delay": "20ms", "queue": "100ms"},
    "flows": [
        {"name": "agent", "kind": "python", "controller": "flowstate.controllers:Hold"},
        {"name": "tcp", "kind": "tcp-cubic", "start": "1s"},
    ],
}


def make_env() -> FlowstateEnv:
    return FlowstateEnv(SCENARIO)


@pytest.mark.parametrize("observation", ["basic", "mmsys2024"])
def test_gymnasiums_checker_passes(observation):
    from gymnasium.utils.env_checker import check_env

    env = FlowstateEnv(SCENARIO, observation=observation)
    check_env(env, skip_render_check=True)
    assert env.observation_space.shape == ({"basic": 5, "mmsys2024": 150}[observation],)


def episode(env: FlowstateEnv, seed: int, rates) -> tuple[np.ndarray, list[float]]:
    obs, _ = env.reset(seed=seed)
    seen, rewards = [obs], []
    for rate in rates:
        obs, reward, terminated, truncated, _ = env.step(np.array([rate], dtype=np.float32))
        seen.append(obs)
        rewards.append(reward)
        if terminated:
            break
    return np.array(seen), rewards


def test_an_episode_runs_to_the_duration_and_actions_matter():
    env = FlowstateEnv(SCENARIO, observation="basic")
    _, low = episode(env, 1, [3e5] * 100)
    assert len(low) == 50  # 3 s in 60 ms steps: terminated at the duration
    _, high = episode(env, 1, [1.8e6] * 100)
    assert sum(high) > sum(low)
    # The summary of the run the episode was.
    episode(env, 1, [1e6] * 10)
    summary = env.summary()
    assert summary["flows"][0]["kind"] == "python"


def test_the_same_seed_and_actions_give_the_same_episode():
    rates = [4e5 + 3e4 * k for k in range(40)]
    a = episode(FlowstateEnv(SCENARIO, observation="mmsys2024"), 7, rates)
    b = episode(FlowstateEnv(SCENARIO, observation="mmsys2024"), 7, rates)
    assert np.array_equal(a[0], b[0]) and a[1] == b[1]


def test_a_built_in_flow_can_be_the_agent_and_bad_arguments_are_one_line():
    scen = {**SCENARIO, "flows": [{"name": "gcc", "kind": "gcc", "preset": "chromium"}, SCENARIO["flows"][1]]}
    env = FlowstateEnv(scen, flow="gcc")
    env.reset(seed=1)
    env.step([1e6])
    with pytest.raises(flowstate.FlowstateError, match="flow 'nope' is not in the scenario"):
        FlowstateEnv(scen, flow="nope")
    with pytest.raises(flowstate.FlowstateError, match="step_ms must be a number >= 1"):
        FlowstateEnv(SCENARIO, step_ms=0)
    with pytest.raises(flowstate.FlowstateError, match="observation must be one of basic, mmsys2024"):
        FlowstateEnv(SCENARIO, observation="pixels")


def test_a_trace_episode():
    env = FlowstateEnv(trace=ROOT / "scenarios/traces/cellular-synth.mahimahi", duration="2s")
    obs, info = env.reset(seed=2)
    total = 0.0
    for _ in range(34):  # 2 s in 60 ms steps
        obs, reward, terminated, _, info = env.step([1.5e6])
        total += reward
    assert terminated and info["throughput_mbps"] >= 0 and total != 0.0


def test_vector_environments_over_processes():
    envs = gymnasium.vector.AsyncVectorEnv([make_env, make_env])
    try:
        obs, _ = envs.reset(seed=[1, 2])
        for _ in range(5):
            obs, reward, terminated, truncated, _ = envs.step(np.full((2, 1), 1e6, dtype=np.float32))
        assert obs.shape == (2, 5) and reward.shape == (2,)
    finally:
        envs.close()


def test_the_training_example_runs_end_to_end():
    sys.path.insert(0, str(ROOT / "examples"))
    try:
        import train_linear
    finally:
        sys.path.remove(str(ROOT / "examples"))
    history = train_linear.train(iterations=3, steps=40)
    assert len(history) == 4 and history[-1] >= history[0]
