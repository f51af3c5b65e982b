"""The simple FSE for rate flows (paper 004 Alg. 1: RFC 8699 5.2 active algorithm 1
with proportional shares, no leftover loop and no reset of S_CR) as a coupling rule
written in Python. examples/simple_fse.toml runs it; the built-in `fse-simple` does
the same, and tests/test_python_coupling_rule.py compares the two."""


class SimpleFse:
    """One flow group's state: the aggregate S_CR and each flow's FSE_R, in bit/s."""

    def __init__(self):
        self.s_cr = 0.0
        self.fse_r = {}

    def on_register(self, now_s, flow, flows):
        # RFC 8699 5.1: FSE_R(f) = the flow's rate, S_CR += FSE_R(f).
        self.fse_r[flow.id] = flow.rate_bps
        self.s_cr += flow.rate_bps

    def on_report(self, now_s, flow, flows):
        # 5.2 step (a): S_CR += CC_R - FSE_R(f), never below zero.
        self.s_cr = max(0.0, self.s_cr + flow.rate_bps - self.fse_r[flow.id])
        # Step (b), paper 004's variant: FSE_R(i) = min(DR(i), P(i) x S_CR / S_P).
        s_p = sum(f.priority for f in flows)
        for f in flows:
            share = f.priority * self.s_cr / s_p
            if f.desired_rate_bps is not None:
                share = min(share, f.desired_rate_bps)
            self.fse_r[f.id] = share
        return dict(self.fse_r)

    def on_leave(self, now_s, flow, flows):
        # RFC 8699 5.2: the entry goes; S_CR is left as it is.
        del self.fse_r[flow.id]
