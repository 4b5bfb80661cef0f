import { describeModel } from './model.js';

describeModel(4);
