// The recorder bundle (browserflow-record's recorder script): installs itself when evaluated.
import { install } from '../recorder/recorder';

install();
