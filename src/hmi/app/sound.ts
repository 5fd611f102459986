import { signal, type Signal } from '@preact/signals';

// Short tones for those who work with their eyes elsewhere (on the conveyor, on the
// goods): the alarm watch sounds a new critical alarm, goods-in each scan. Each keeps
// its own switch, off until the user turns it on and remembered by the browser.
// Browsers play sound only after a user's gesture: the click that turns a switch on is
// one, so that click opens the page's one audio context and plays a sample.

/** A tone: its wave and pitch, when it sounds (from, for how long, in seconds), and when it ends. */
export interface Tone {
  wave: OscillatorType;
  hz: number;
  beeps: readonly (readonly [start: number, length: number])[];
  end: number;
}

let audio: AudioContext | undefined;

export class SoundSwitch {
  readonly on: Signal<boolean>;
  private readonly key: string;

  /** `key`: where the browser remembers the switch (localStorage). */
  constructor(key: string) {
    this.key = key;
    this.on = signal(localStorage.getItem(key) === 'on');
  }

  /** Turns the sound on or off; turned on, `sample` sounds at once. */
  set(on: boolean, sample: Tone): void {
    this.on.value = on;
    localStorage.setItem(this.key, on ? 'on' : 'off');
    if (on) {
      audio ??= new AudioContext();
      void audio.resume();
      this.play(sample);
    }
  }

  /** Sounds the tone when the switch is on: one oscillator, its gain switched on and off. */
  play(tone: Tone): void {
    if (!this.on.value) return;
    audio ??= new AudioContext();
    const at = audio.currentTime;
    const gain = audio.createGain();
    gain.gain.value = 0;
    gain.connect(audio.destination);
    const oscillator = audio.createOscillator();
    oscillator.type = tone.wave;
    oscillator.frequency.value = tone.hz;
    oscillator.connect(gain);
    for (const [start, length] of tone.beeps) {
      gain.gain.setValueAtTime(0.15, at + start);
      gain.gain.setValueAtTime(0, at + start + length);
    }
    oscillator.start(at);
    oscillator.stop(at + tone.end);
  }
}
