import { SoundSwitch, type Tone } from '../../sound.ts';

// A short sound per scan, for a desk where the operator looks at the goods, not the
// screen: a high beep when booked, a low double buzz when refused. Off until turned on;
// remembered by the browser (the switch is the shell's, sound.ts).

const BOOKED: Tone = { wave: 'sine', hz: 1320, beeps: [[0, 0.12]], end: 0.5 };
const REFUSED: Tone = {
  wave: 'square',
  hz: 220,
  beeps: [
    [0, 0.15],
    [0.22, 0.15],
  ],
  end: 0.5,
};

const scanSound = new SoundSwitch('wms.hmi.goodsIn.sound');
export const soundOn = scanSound.on;

export const setSound = (on: boolean): void => scanSound.set(on, BOOKED);

export const signalScan = (ok: boolean): void => scanSound.play(ok ? BOOKED : REFUSED);
