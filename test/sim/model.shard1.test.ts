import { describeModel } from './model.js';

describeModel(1);
