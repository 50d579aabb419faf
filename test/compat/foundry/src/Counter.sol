// SPDX-License-Identifier: MIT
pragma solidity ^0.8.20;

contract Counter {
    uint256 public number;

    event Incremented(address indexed by, uint256 number);

    constructor(uint256 initial) {
        number = initial;
    }

    function increment() external {
        number += 1;
        emit Incremented(msg.sender, number);
    }

    function setNumber(uint256 value) external {
        number = value;
    }
}
