"""AIMD in Python: the additive-increase / multiplicative-decrease rule of the built-in
`rap` flows (one packet per RTT more without loss, half on a loss, at most once per
RTT), as a flowstate controller. Run it: flowstate run examples/aimd.toml"""


class Aimd:
    def __init__(self, seed, initial_bps=300e3, beta=0.5, packet_bytes=1200):
        self.rate = initial_bps
        self.beta = beta
        self.packet_bits = packet_bytes * 8
        self.srtt = None
        self.last_decrease = -1.0

    def on_feedback(self, fb):
        if fb.allowance_bps is not None:  # a coupling manager's share
            self.rate = fb.allowance_bps
        if fb.rtt_s is not None:
            self.srtt = fb.rtt_s if self.srtt is None else 0.875 * self.srtt + 0.125 * fb.rtt_s
        rtt = self.srtt or 0.1
        if any(fb.lost):
            if fb.now_s - self.last_decrease > rtt:
                self.rate *= self.beta
                self.last_decrease = fb.now_s
        else:
            # One packet per RTT per RTT: the increase over the time the report covers.
            covered = fb.now_s - min(fb.send_time_s) if len(fb) else 0.0
            self.rate += self.packet_bits / rtt * min(covered, rtt) / rtt
        return self.rate
