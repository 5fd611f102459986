import { signal } from '@preact/signals';

// A short sound per scan, for a desk where the operator looks at the goods, not the
// screen: a high beep when booked, a low double buzz when refused. Off until turned on
// (browsers play sound only after a click, and the click that turns it on is one);
// remembered by the browser.

const KEY = 'wms.hmi.goodsIn.sound';
export const soundOn = signal(localStorage.getItem(KEY) === 'on');
let audio: AudioContext | undefined;

export function setSound(on: boolean): void {
  soundOn.value = on;
  localStorage.setItem(KEY, on ? 'on' : 'off');
  if (on) {
    audio ??= new AudioContext();
    void audio.resume();
    signalScan(true);
  }
}

export function signalScan(ok: boolean): void {
  if (!soundOn.value) return;
  audio ??= new AudioContext();
  const at = audio.currentTime;
  const gain = audio.createGain();
  gain.gain.value = 0;
  gain.connect(audio.destination);
  const tone = audio.createOscillator();
  tone.type = ok ? 'sine' : 'square';
  tone.frequency.value = ok ? 1320 : 220;
  tone.connect(gain);
  const beeps = ok ? [[0, 0.12]] : [[0, 0.15], [0.22, 0.15]];
  for (const [start, length] of beeps) {
    gain.gain.setValueAtTime(0.15, at + start!);
    gain.gain.setValueAtTime(0, at + start! + length!);
  }
  tone.start(at);
  tone.stop(at + 0.5);
}
