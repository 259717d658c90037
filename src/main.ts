// Entry point of `cdk8s synth` (see cdk8s.yaml).
import { buildApp } from './app.js';

buildApp().synth();
